#!/usr/bin/env bash
# The HTML pages' budget (issue 16): the page of a 1 h run at 1 s samples
# renders in under a second into under 2 MB. Runs report/page's
# benchmarks and fails when a run page's figures are over the budget.
# Usage: bash scripts/bench-page.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
mkdir -p "$out"
go test -run '^$' -bench 'Hour' -benchmem -count "${BENCH_COUNT:-3}" ./report/page | tee "$out/page.txt"
awk '
/^Benchmark(RenderRunHour|RunHourFromResult)/ {
	for (i = 2; i < NF; i++) {
		if ($(i+1) == "ns/op" && $i + 0 >= 1e9) { print "over budget (1 s): " $0; bad = 1 }
		if ($(i+1) == "bytes/page" && $i + 0 >= 2 * 1024 * 1024) { print "over budget (2 MiB): " $0; bad = 1 }
	}
	n++
}
END {
	if (n == 0) { print "no page benchmark ran"; exit 1 }
	if (bad) exit 1
	print "page budget held: " n " results under 1 s and 2 MiB"
}' "$out/page.txt"
