#!/usr/bin/env bash
# Change-point search over a history of 10,000 runs of 20 metrics: the
# Go benchmark, held to its budget of 2 s per search (the median of the
# runs), so that `stortest history changes` stays quick on a long
# history. Usage: bench-history.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
mkdir -p "$out"
go test -run '^$' -bench 'BenchmarkChangePoints10000x20|BenchmarkChanges10000Runs' -count "${BENCH_COUNT:-3}" ./history | tee "$out/history.txt"
ns=$(awk '/^BenchmarkChangePoints10000x20/ { print $3 }' "$out/history.txt" | sort -n)
n=$(printf '%s\n' "$ns" | grep -c . || true)
if [[ $n -eq 0 ]]; then
	echo "bench-history: no result"
	exit 1
fi
med=$(printf '%s\n' "$ns" | sed -n "$(((n + 1) / 2))p")
awk -v med="$med" -v n="$n" 'BEGIN {
	printf "change points, 10,000 runs x 20 metrics: %.3f s per search (median of %d; budget 2 s)\n", med / 1e9, n
	if (med > 2e9) { print "bench-history: over budget"; exit 1 }
}'
