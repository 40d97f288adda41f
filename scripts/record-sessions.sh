#!/usr/bin/env bash
# Records the gate's operating-table data (regress/testdata/sessions):
# separate sessions (one process each, as a CI job's go test is) of the
# README's job, 10 s each, on one of two devices:
#
#   scripts/record-sessions.sh steady OUT [RUNS] [IOPS]
#       a loop device over /dev/shm whose reads blkio throttles to IOPS
#       (20000 by default): what a steady device looks like;
#   scripts/record-sessions.sh noisy OUT [RUNS]
#       a direct-I/O loop device over a file on this machine's disk while
#       stress-ng keeps both CPUs half busy.
#
# STORTEST_RECORD_COUNT=N records N runs in each session (-rK files).
# Needs root, cgroup v1 blkio (steady), stress-ng (noisy).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?steady or noisy}
out=$(realpath -m "${2:?output directory}")
runs=${3:-30}
iops=${4:-20000}
pids=()
scratch= loop= cg=
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null || true
	[[ -n $cg && -d $cg ]] && rmdir "$cg" 2>/dev/null || true
	[[ -n $scratch ]] && rm -rf "$scratch"
}
trap cleanup EXIT
bin=$(mktemp -d /var/tmp/stortest-record.XXXXXX)
scratch=$bin
go test -c -o "$bin/noise.test" ./internal/noise
case $kind in
steady)
	truncate -s 256M "/dev/shm/$(basename "$bin").img"
	img=/dev/shm/$(basename "$bin").img
	loop=$(losetup --find --show "$img")
	rm -f "$img" # the loop device holds it until detached
	cg=/sys/fs/cgroup/blkio/stortest-record-$$
	mkdir "$cg"
	echo "$(cat /sys/class/block/$(basename "$loop")/dev) $iops" >"$cg/blkio.throttle.read_iops_device"
	;;
noisy)
	truncate -s 1G "$bin/disk.img"
	loop=$(losetup --find --show --direct-io=on "$bin/disk.img")
	stress-ng --cpu 2 --cpu-load 50 --timeout 0 >/dev/null 2>&1 &
	pids+=($!)
	;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac
mkdir -p "$out"
for i in $(seq 1 "$runs"); do
	f=$(printf "%s/session-%02d.json" "$out" "$i")
	if [[ -n $cg ]]; then
		sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$cg" env STORTEST_RECORD_COUNT="${STORTEST_RECORD_COUNT:-1}" STORTEST_RECORD_SESSION="$f" STORTEST_DEVICE="$loop" \
			"$bin/noise.test" -test.run '^TestRecordSession$' -test.count=1 -test.v | grep 'IOPS' || true
	else
		STORTEST_RECORD_COUNT="${STORTEST_RECORD_COUNT:-1}" STORTEST_RECORD_SESSION="$f" STORTEST_DEVICE="$loop" "$bin/noise.test" -test.run '^TestRecordSession$' -test.count=1 -test.v | grep 'IOPS' || true
	fi
	shopt -s nullglob
	got=("${f%.json}"*.json)
	shopt -u nullglob
	((${#got[@]})) || { echo "session $i recorded nothing" >&2; exit 1; }
	gzip -9f "${got[@]}"
done
