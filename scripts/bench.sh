#!/usr/bin/env bash
# Benchmarks: the hot-path Go benchmarks (clock reads, histogram adds),
# then, when their scripts exist, side-by-side runs against fio.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-bench.out}
mkdir -p "$out"
echo "== Go hot-path benchmarks (-benchmem)"
go test -run '^$' -bench . -benchmem -count "${BENCH_COUNT:-3}" ./clock ./latency ./workload | tee "$out/go.txt"
for s in scripts/bench-*.sh; do
	[[ -e $s ]] || continue
	echo "== $s"
	bash "$s" "$out"
done
