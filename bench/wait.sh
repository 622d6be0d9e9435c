#!/usr/bin/env bash
# retry wait on a large document: a describe-instances-like JSON of
# INSTANCES instances (default 100 000, ~96 MB; 520 000 make ~500 MB),
# evaluated three ways:
#   retry wait --attempts 1 --success-all 'Reservations[].Instances[].State.Name=running' -- cat doc.json
#   retry wait --attempts 1 --success-any 'Reservations[].Instances[].State.Name=stopped' -- cat doc.json
#   retry wait --attempts 1 --query 'Reservations[].Instances[].InstanceId' --success-all … -- cat doc.json
# and --query alone (--success-exit 0: no acceptor decodes the document)
# projecting every instance ID (as JSON and as --output text) and every
# instance whole (Reservations[].Instances[]), and an index into the
# array from the start and from the end (Reservations[0].Instances[0].InstanceId,
# Reservations[-1].Instances[-1].InstanceId),
# side by side with jp and jq (Debian packages, installed if missing)
# computing the same projection, interleaved round by round (bench/lib.sh).
# Reports median CPU (user+sys of the tree) and wall time and the peak RSS.
# Usage: bench/wait.sh [ROUNDS] [INSTANCES] [OLD_RETRY_BINARY]
# (an older build is timed beside, with --success-all and --query; PEERS=no
# leaves jp and jq out: on 500 MB they take 2-3 GB of memory each)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} instances=${2:-100000} old=${3:-}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
R=$PWD/$out/retry
for tool in jp jq; do
	if ! command -v "$tool" >/dev/null; then
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool") >/dev/null 2>&1 || true
	fi
done
doc=$out/instances-$instances.json
if ! [ -s "$doc" ]; then
	# Written a reservation at a time: a 500 MB document is never in memory.
	python3 - "$doc" "$((instances / 5))" <<'PY'
import json, sys, random
random.seed(7)
out = open(sys.argv[1], "w")
out.write('{"Reservations": [')
for r in range(int(sys.argv[2])):
    insts = []
    for i in range(5):
        n = r * 5 + i
        insts.append({
            "AmiLaunchIndex": i, "ImageId": "ami-%08x" % random.getrandbits(32),
            "InstanceId": "i-%017x" % n, "InstanceType": random.choice(["t3.micro", "m5.large", "c6g.xlarge"]),
            "LaunchTime": "2026-11-0%dT12:00:00+00:00" % (1 + n % 9),
            "Monitoring": {"State": "disabled"},
            "Placement": {"AvailabilityZone": "us-east-1" + "abc"[n % 3], "GroupName": "", "Tenancy": "default"},
            "PrivateDnsName": "ip-10-0-%d-%d.ec2.internal" % (n // 256 % 256, n % 256),
            "PrivateIpAddress": "10.0.%d.%d" % (n // 256 % 256, n % 256),
            "ProductCodes": [], "PublicDnsName": "", "State": {"Code": 16, "Name": "running"},
            "StateTransitionReason": "", "SubnetId": "subnet-%08x" % (n % 50), "VpcId": "vpc-0abc1234",
            "Architecture": "x86_64",
            "ClientToken": "", "EbsOptimized": False, "EnaSupport": True, "Hypervisor": "xen",
            "RootDeviceName": "/dev/xvda", "RootDeviceType": "ebs", "SecurityGroups": [{"GroupName": "default", "GroupId": "sg-0123456789"}],
            "Tags": [{"Key": "Name", "Value": "web-%d" % n}, {"Key": "team", "Value": "platform"}],
            "VirtualizationType": "hvm", "CpuOptions": {"CoreCount": 1, "ThreadsPerCore": 2},
        })
    out.write((", " if r else "") + json.dumps({"Groups": [], "Instances": insts, "OwnerId": "123456789012", "ReservationId": "r-%017x" % r}))
out.write("]}")
PY
fi
echo "document: $(du -mL "$doc" | cut -f1) MB, $instances instances"

expr='Reservations[].Instances[].State.Name'
"$R" wait -q --attempts 1 --success-all "$expr=running" -- cat "$doc" || { echo "retry wait did not succeed"; exit 1; }
. bench/lib.sh
args=("retry --success-all" "-- $R wait -q --attempts 1 --success-all '$expr=running' -- cat $doc"
	"retry --success-any" "-- $R wait -q --attempts 1 --success-any '$expr=stopped' -- cat $doc"
	"retry --query" "-- $R wait --attempts 1 --query 'Reservations[].Instances[].InstanceId' --success-all '$expr=running' -- cat $doc"
	"retry --query ids" "-- $R wait --attempts 1 --success-exit 0 --query 'Reservations[].Instances[].InstanceId' -- cat $doc"
	"retry --query ids text" "-- $R wait --attempts 1 --success-exit 0 --output text --query 'Reservations[].Instances[].InstanceId' -- cat $doc"
	"retry --query whole" "-- $R wait --attempts 1 --success-exit 0 --query 'Reservations[].Instances[]' -- cat $doc"
	"retry --query index" "-- $R wait --attempts 1 --success-exit 0 --query 'Reservations[0].Instances[0].InstanceId' -- cat $doc"
	"retry --query index -1" "-- $R wait --attempts 1 --success-exit 0 --query 'Reservations[-1].Instances[-1].InstanceId' -- cat $doc")
[ -n "$old" ] && args+=("old --success-all" "-- $old wait -q --attempts 1 --success-all '$expr=running' -- cat $doc"
	"old --query" "-- $old wait --attempts 1 --query 'Reservations[].Instances[].InstanceId' --success-all '$expr=running' -- cat $doc"
	"old --query ids" "-- $old wait --attempts 1 --success-exit 0 --query 'Reservations[].Instances[].InstanceId' -- cat $doc"
	"old --query ids text" "-- $old wait --attempts 1 --success-exit 0 --output text --query 'Reservations[].Instances[].InstanceId' -- cat $doc"
	"old --query whole" "-- $old wait --attempts 1 --success-exit 0 --query 'Reservations[].Instances[]' -- cat $doc"
	"old --query index" "-- $old wait --attempts 1 --success-exit 0 --query 'Reservations[0].Instances[0].InstanceId' -- cat $doc"
	"old --query index -1" "-- $old wait --attempts 1 --success-exit 0 --query 'Reservations[-1].Instances[-1].InstanceId' -- cat $doc")
[ "${PEERS:-}" != no ] && command -v jp >/dev/null && args+=(jp "-- jp -f $doc '$expr'")
[ "${PEERS:-}" != no ] && command -v jq >/dev/null && args+=(jq "-- jq '[.Reservations[].Instances[].State.Name]' $doc")
interleave "${args[@]}"
echo "median of $rounds interleaved rounds:"
printf '  %-22s %10s %10s %10s\n' "" "CPU s" "wall s" "peak RSS"
for name in "retry --success-all" "retry --success-any" "retry --query" "retry --query ids" "retry --query ids text" "retry --query whole" "retry --query index" "retry --query index -1" \
	"old --success-all" "old --query" "old --query ids" "old --query ids text" "old --query whole" "old --query index" "old --query index -1" jp jq; do
	[ -n "${t[$name]:-}" ] || continue
	awk -v n="$name" -v c="${c[$name]}" -v t="${t[$name]}" -v m="${m[$name]}" 'BEGIN {printf "  %-22s %10.2f %10.2f %7d MB\n", n, c, t, m / 1024}'
done
for name in jp jq; do
	[ -n "${t[$name]:-}" ] || continue
	echo "retry --success-all / $name: CPU $(ratio "${c[retry --success-all]}" "${c[$name]}")x, peak RSS $(ratio "${m[retry --success-all]}" "${m[$name]}")x"
done
loadline
