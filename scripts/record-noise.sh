#!/usr/bin/env bash
# Records the gate's real-noise test data: 16 unchanged runs each of
# 2 s, 10 s and 30 s of the README's job on a direct-I/O loop device over
# a file on this machine's disk, interleaved, while stress-ng keeps both
# CPUs half busy:
#
#   scripts/record-noise.sh regress/testdata/noise/cpu
#
# With NEIGHBOUR=1 a paced neighbour (fio, 64 KiB random reads and writes
# at 20 MiB/s) also shares the disk, as other tenants of a CI host would
# (regress/testdata/noise/shared). Needs root, stress-ng and fio, and
# about 12 minutes. An unpaced writer as the neighbour drains a cloud
# disk's burst budget and turns the recording into a slow decline.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-regress/testdata/noise/cpu}")
runs=${STORTEST_RECORD_RUNS:-16}
scratch=$(mktemp -d /var/tmp/stortest-noise.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT
stress-ng --cpu 2 --cpu-load 50 --timeout 0 >/dev/null 2>&1 &
pids+=($!)
if [[ ${NEIGHBOUR:-0} == 1 ]]; then
	fio --name=neighbour --filename="$scratch/neighbour" --size=512M --rw=randrw --bs=64k --direct=1 \
		--ioengine=psync --rate=10m,10m --time_based --runtime=7200 >/dev/null 2>&1 &
	pids+=($!)
fi
STORTEST_RECORD_NOISE=$out STORTEST_RECORD_RUNS=$runs go test -count=1 -timeout 60m -run '^TestRecordNoise$' -v ./internal/noise | grep -v '^=== '
# The runs are kept compressed: they are test data, read by regress.
gzip -9f "$out"/*/run-*.json
