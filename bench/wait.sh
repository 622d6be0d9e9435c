#!/usr/bin/env bash
# retry wait on a large document: an ~80 MB describe-instances-like JSON
# (100 000 instances), evaluated with
#   retry wait --attempts 1 --success-all 'Reservations[].Instances[].State.Name=running' -- cat doc.json
# side by side with jp and jq (Debian packages, installed if missing)
# computing the same projection, interleaved round by round. Reports median
# wall time and peak RSS.
# Usage: bench/wait.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=bench/out; mkdir -p "$out"
CGO_ENABLED=0 go build -o "$out/retry" .
R=$PWD/$out/retry
for tool in jp jq time; do
	if ! command -v "$tool" >/dev/null && ! [ -x /usr/bin/$tool ]; then
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool") >/dev/null 2>&1 || true
	fi
done
doc=$out/instances.json
if ! [ -s "$doc" ]; then
	python3 - "$doc" <<'PY'
import json, sys, random
random.seed(7)
res = []
for r in range(20000):
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
    res.append({"Groups": [], "Instances": insts, "OwnerId": "123456789012", "ReservationId": "r-%017x" % r})
json.dump({"Reservations": res}, open(sys.argv[1], "w"))
PY
fi
echo "document: $(du -m "$doc" | cut -f1) MB, 100000 instances"

# The tools are timed round by round, the order rotating (as bench/lib.sh
# interleave does), each run under /usr/bin/time for its peak RSS.
expr='Reservations[].Instances[].State.Name'
"$R" wait -q --attempts 1 --success-all "$expr=running" -- cat "$doc" || { echo "retry wait did not succeed"; exit 1; }
names=("retry wait"); cmds=("$R wait -q --attempts 1 --success-all '$expr=running' -- cat $doc")
command -v jp >/dev/null && { names+=(jp); cmds+=("jp -f $doc '$expr'"); }
command -v jq >/dev/null && { names+=(jq); cmds+=("jq '[.Reservations[].Instances[].State.Name]' $doc"); }
k=${#names[@]}
declare -A ts rs
for ((r = 0; r < rounds; r++)); do
	for ((j = 0; j < k; j++)); do
		i=$(((j + r) % k))
		eval "/usr/bin/time -o $out/time.txt -f '%e %M' ${cmds[$i]}" >/dev/null 2>&1 || true
		line=$(tail -1 "$out/time.txt")
		ts[$i]+="${line% *} "; rs[$i]+="${line#* } "
	done
done
med() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
top() { printf '%s\n' $1 | sort -g | tail -1; }
for ((i = 0; i < k; i++)); do
	tm[$i]=$(med "${ts[$i]}"); mm[$i]=$(top "${rs[$i]}")
	printf '%-12s %6.2f s %6d MB\n' "${names[$i]}" "${tm[$i]}" "$((mm[$i] / 1024))"
done
for ((i = 1; i < k; i++)); do
	awk -v n="${names[$i]}" -v a="${tm[0]}" -v b="${tm[$i]}" -v c="${mm[0]}" -v d="${mm[$i]}" \
		'BEGIN {printf "retry/%s: time %.2fx, peak memory %.2fx\n", n, a / b, c / d}'
done
