#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from the tools module (tools/apiserver) once per
# machine, caches them outside the repository and prints the folder holding them: the
# value for KUBEBUILDER_ASSETS.
#
#   export KUBEBUILDER_ASSETS="$(scripts/test-apiserver.sh)"
#   scripts/test-apiserver.sh --probe   # run the checks a build ends with (does each binary
#                                       # run, etcd's version) on the cached folder and print
#                                       # the VERSIONS report they make, without building;
#                                       # exit 1 if the folder is not built yet
#
# stdout: only the folder (--probe: the report). stderr: progress and errors. Exit 0 on success.
#
# Cache: ${KRMPLAN_APISERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/krmplan/apiserver}/<key>
# with key = <k8s version>-<go version>-<goos>_<goarch>-<hash of tools go.mod + go.sum>.
# A cache hit costs a few milliseconds. The first build on a machine takes 3 to
# 8 minutes on 2 cores (about 2 GB of memory); a relink over a warm Go build cache
# takes 10 to 20 s. Concurrent runs build once (flock); the result is built in a
# temporary folder and moved into place, so a half-built folder is never used.
set -euo pipefail

probe=
case ${1-} in
	"") ;;
	--probe) probe=1 ;;
	*) printf 'usage: scripts/test-apiserver.sh [--probe]\n' >&2; exit 2 ;;
esac

say() { printf 'test-apiserver: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/tools/apiserver"
[[ -f $tools/go.mod && -f $tools/go.sum ]] || die "missing $tools/go.mod or go.sum"
command -v go >/dev/null || die "go is not on PATH"
command -v flock >/dev/null || die "flock (util-linux) is not on PATH"

# The Kubernetes version comes from the tools module's go.mod, without running `go list`.
kv=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ { print $2; exit }
          $1 == "require" && $2 == "k8s.io/kubernetes" { print $3; exit }' "$tools/go.mod")
[[ $kv =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "cannot find the k8s.io/kubernetes version in $tools/go.mod (got '${kv:-nothing}')"
minor=${BASH_REMATCH[1]}

{ read -r gover; read -r goos; read -r goarch; } < <(go env GOVERSION GOOS GOARCH)
sum=$(cat "$tools/go.mod" "$tools/go.sum" | sha256sum | cut -c1-12)
key="$kv-$gover-${goos}_$goarch-$sum"

cache_root=${KRMPLAN_APISERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/krmplan/apiserver}
dir="$cache_root/$key"

complete() { [[ -x $1/kube-apiserver && -x $1/etcd && -x $1/kubectl ]]; }

# The checks a build ends with, on the binaries in folder $1: prints the VERSIONS report.
# --probe runs this same function on the cached folder, so a loop over --probe exercises
# the code a build runs (this is where a pipe into head once failed a third of the runs).
versions() {
	"$1/kube-apiserver" --version >/dev/null 2>&1 || die "the built kube-apiserver does not run"
	"$1/kubectl" version --client >/dev/null 2>&1 || die "the built kubectl does not run"
	echo "kubernetes $kv"
	echo "go $gover $goos/$goarch"
	echo "tools-module-hash $sum"
	# The first line of etcd's version report, read whole: a pipe into head would
	# close early and kill etcd with SIGPIPE, which pipefail turns into a failure.
	local etcd_version
	etcd_version=$("$1/etcd" --version 2>/dev/null) || die "the built etcd does not run"
	printf '%s\n' "${etcd_version%%$'\n'*}"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

if [[ -n $probe ]]; then
	complete "$dir" || die "$dir is not built yet: run scripts/test-apiserver.sh first"
	versions "$dir"
	exit 0
fi

if complete "$dir"; then
	printf '%s\n' "$dir"
	exit 0
fi

mkdir -p "$cache_root" || die "cannot create $cache_root"
exec 9>"$cache_root/.$key.lock" || die "cannot open the lock file in $cache_root"
if ! flock -n 9; then
	say "another build of $key is running; waiting for it"
	flock 9
fi
if complete "$dir"; then # built by the run we waited for
	printf '%s\n' "$dir"
	exit 0
fi

rm -rf "$cache_root/.tmp-$key."* # left by a build that was killed (we hold the lock)
tmp=$(mktemp -d "$cache_root/.tmp-$key.XXXXXX")
chmod 755 "$tmp"
child=
trap '[[ -n $child ]] && kill "$child" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $p.gitVersion=$kv -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done

say "building kube-apiserver, etcd and kubectl $kv with $gover into $dir"
say "(the first build on a machine takes 3 to 8 minutes on 2 cores; later runs use the cache)"
start=$SECONDS
build() { # name, ldflags, package
	local t0=$SECONDS
	(cd "$tools" && GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" exec go build -ldflags "$2" -o "$tmp/$1" "$3") >&2 9>&- &
	child=$!
	wait "$child" || die "building $1 ($3) failed"
	child=
	say "built $1 in $((SECONDS - t0)) s"
}
build kube-apiserver "$ldflags" k8s.io/kubernetes/cmd/kube-apiserver
build etcd "-s -w" go.etcd.io/etcd/server/v3
build kubectl "$ldflags" k8s.io/kubernetes/cmd/kubectl

versions "$tmp" >"$tmp/VERSIONS"

rm -rf "$dir" # a folder without all three binaries is not a cache hit
mv -T "$tmp" "$dir" || die "cannot move the build into $dir"
trap - EXIT INT TERM
say "done in $((SECONDS - start)) s"
printf '%s\n' "$dir"
