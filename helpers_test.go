//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptPrograms["scripted"] = scriptedMain
	scriptPrograms["spawn"] = spawnMain
	scriptPrograms["sleeper"] = sleeperMain
	scriptPrograms["catn"] = catnMain
	scriptPrograms["genbytes"] = genbytesMain
	scriptPrograms["geninstances"] = geninstancesMain
	scriptCommands["status"] = cmdStatus
	scriptCommands["start"] = cmdStart
	scriptCommands["signal"] = cmdSignal
	scriptCommands["waitexit"] = cmdWaitExit
	scriptCommands["waitfile"] = cmdWaitFile
	scriptCommands["gone"] = cmdGone
	scriptCommands["count"] = cmdCount
	scriptCommands["waitstderr"] = cmdWaitStderr
}

// catnMain is `catn N`: it copies at most N bytes of stdin to stdout.
func catnMain() {
	n, _ := strconv.ParseInt(os.Args[1], 10, 64)
	b := make([]byte, n)
	m, _ := ioReadFull(os.Stdin, b)
	os.Stdout.Write(b[:m])
}

func ioReadFull(f *os.File, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := f.Read(b[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// cmdSignal is `signal NAME SIG`: it sends SIG (TERM, INT, HUP, …) to the
// process started as NAME.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal NAME SIG")
	}
	p := startedProc(ts, args[0])
	sigs := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT}
	sig, ok := sigs[args[1]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[1])
	}
	ts.Check(p.cmd.Process.Signal(sig))
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// genbytesMain is `genbytes N FILE`: it writes N deterministic pseudo-random
// bytes (all 256 values, no trailing newline) to FILE.
func genbytesMain() {
	n, _ := strconv.Atoi(os.Args[1])
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	if err := os.WriteFile(os.Args[2], b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// geninstancesMain is `geninstances N FILE`: it writes to FILE a
// describe-instances-like JSON document of N reservations of 5 instances
// each (about 1 KB an instance), every instance "running" but the last,
// which is "stopped".
func geninstancesMain() {
	n, _ := strconv.Atoi(os.Args[1])
	f, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"Reservations": [`)
	for r := range n {
		if r > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(w, `{"Groups": [], "OwnerId": "123456789012", "ReservationId": "r-%017x", "Instances": [`, r)
		for i := range 5 {
			k := r*5 + i
			state := "running"
			if k == n*5-1 {
				state = "stopped"
			}
			if i > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(w, `{"AmiLaunchIndex": %d, "ImageId": "ami-%08x", "InstanceId": "i-%017x", "InstanceType": "m5.large", `+
				`"LaunchTime": "2026-11-0%dT12:00:00+00:00", "Monitoring": {"State": "disabled"}, `+
				`"Placement": {"AvailabilityZone": "us-east-1%c", "GroupName": "", "Tenancy": "default"}, `+
				`"PrivateDnsName": "ip-10-0-%d-%d.ec2.internal", "PrivateIpAddress": "10.0.%d.%d", "ProductCodes": [], `+
				`"PublicDnsName": "", "State": {"Code": 16, "Name": "%s"}, "StateTransitionReason": "", `+
				`"SubnetId": "subnet-%08x", "VpcId": "vpc-0abc1234", "Architecture": "x86_64", "ClientToken": "", `+
				`"EbsOptimized": false, "EnaSupport": true, "Hypervisor": "xen", "RootDeviceName": "/dev/xvda", `+
				`"RootDeviceType": "ebs", "SecurityGroups": [{"GroupName": "default", "GroupId": "sg-0123456789"}], `+
				`"Tags": [{"Key": "Name", "Value": "web-%d"}, {"Key": "team", "Value": "platform"}], `+
				`"VirtualizationType": "hvm", "CpuOptions": {"CoreCount": 1, "ThreadsPerCore": 2}}`,
				i, uint32(k)*2654435761, k, 1+k%9, "abc"[k%3], k/256%256, k%256, k/256%256, k%256, state, k%50, k)
		}
		w.WriteString(`]}`)
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
