#!/usr/bin/env bash
# retry wait on a large document: an ~80 MB describe-instances-like JSON
# (100 000 instances), evaluated with
#   retry wait --attempts 1 --success-all 'Reservations[].Instances[].State.Name=running' -- cat doc.json
# side by side with jp and jq (Debian packages, installed if missing)
# computing the same projection. Reports median wall time and peak RSS.
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

# measure CMD...: prints "median_seconds peak_rss_kb"
measure() {
	local -a ts=() rs=()
	for _ in $(seq "$rounds"); do
		local line
		/usr/bin/time -o "$out/time.txt" -f '%e %M' "$@" >/dev/null 2>&1 || true
		line=$(tail -1 "$out/time.txt")
		ts+=("${line% *}"); rs+=("${line#* }")
	done
	printf '%s %s\n' "$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
		"$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)"
}
expr='Reservations[].Instances[].State.Name'
read -r t_ours m_ours < <(measure "$R" wait -q --attempts 1 --success-all "$expr=running" -- cat "$doc")
"$R" wait -q --attempts 1 --success-all "$expr=running" -- cat "$doc" || { echo "retry wait did not succeed"; exit 1; }
printf '%-12s %6.2f s %6d MB\n' "retry wait" "$t_ours" "$((m_ours / 1024))"
if command -v jp >/dev/null; then
	read -r t_jp m_jp < <(measure jp -f "$doc" "$expr")
	printf '%-12s %6.2f s %6d MB\n' "jp" "$t_jp" "$((m_jp / 1024))"
	awk -v a="$t_ours" -v b="$t_jp" -v c="$m_ours" -v d="$m_jp" 'BEGIN {printf "retry/jp: time %.2fx, peak memory %.2fx\n", a / b, c / d}'
fi
if command -v jq >/dev/null; then
	read -r t_jq m_jq < <(measure jq '[.Reservations[].Instances[].State.Name]' "$doc")
	printf '%-12s %6.2f s %6d MB\n' "jq" "$t_jq" "$((m_jq / 1024))"
	awk -v a="$t_ours" -v b="$t_jq" -v c="$m_ours" -v d="$m_jq" 'BEGIN {printf "retry/jq: time %.2fx, peak memory %.2fx\n", a / b, c / d}'
fi
