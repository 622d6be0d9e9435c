#!/bin/sh
# Builds the real Kubernetes control plane the wait_k8s_real_* scripts start (kubecluster_test.go):
# etcd v3.5.16, kube-apiserver and kube-controller-manager v1.32.4, from the Go module proxy.
# module/ is a scratch module that requires k8s.io/kubernetes v1.32.4 with every k8s.io staging
# module pinned to v0.32.4, and go.etcd.io/etcd/server/v3 (no prebuilt binary can be downloaded
# here, but the proxy serves their source).
#
# Usage: .ci/k8s/build.sh [HOME]   (default ${XDG_CACHE_HOME:-~/.cache}/retry-k8s)
# The binaries go to HOME/bin, where the scripts look (or set RETRY_K8S_BIN). A binary already
# there is kept: the first run on a machine takes 6 minutes on a quiet 2-core machine (modules
# 10 s, kube-apiserver 246 s, kube-controller-manager 70 s, etcd 15 s), about 12 under load, and
# 2.7 GB of build cache; later runs take a second.
set -e
here=$(cd "$(dirname "$0")" && pwd)
home=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/retry-k8s}
mkdir -p "$home/bin" "$home/src"
cp "$here/module/go.mod" "$here/module/go.sum" "$home/src/"
chmod u+w "$home/src/"*
# The upstream main packages' dependencies, pinned by module/go.mod (written here, not kept as a
# .go file, which Go tooling run over the retry repository would try to build).
cat >"$home/src/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)
GO
cd "$home/src"
V=v1.32.4
LD="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	LD="$LD -X $p.gitVersion=$V -X $p.gitMajor=1 -X $p.gitMinor=32 -X $p.gitTreeState=clean -X $p.buildDate=2025-04-22T00:00:00Z"
done
build() { # NAME PACKAGE
	[ -x "$home/bin/$1" ] && return 0
	start=$(date +%s)
	CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "$LD" -o "$home/bin/$1.tmp" "$2"
	mv "$home/bin/$1.tmp" "$home/bin/$1"
	echo "$1: built in $(($(date +%s) - start))s"
}
build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
echo "control plane in $home/bin"
