#!/usr/bin/env bash
# The gate's operating table on recorded real runs (make bench runs it):
#
#   - regress/testdata/sessions: separate 10 s sessions of the README's
#     job on a steady device (a loop over /dev/shm throttled by blkio to
#     20000 read IOPS), the same device on a CPU-starved host, and a
#     noisy one (a loop over a file on the disk under CPU load), for
#     baselines of 1, 5 and 10 sessions: false alarms and strict passes
#     over 240 unchanged comparisons, the smallest IOPS drop and p99 rise
#     caught 9 times in 10, the real -15% sessions (steady17k) beside the
#     simulated -15%, and the runs the repeat option takes
#     (TestGateOperatingTable; STORTEST_GATE_SETS points sets at other
#     recordings, e.g. STORTEST_GATE_SETS=steady=/rec/quiet-steady);
#   - regress/testdata/noise: runs of 2 s, 10 s and 30 s recorded back to
#     back, for baselines of one and three runs (TestGatePowerTable).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
mkdir -p "$out"
# table runs one table's test, its whole output kept in $out/TEST.txt.
table() {
	STORTEST_GATE_TABLE=1 go test -count=1 -timeout 30m -run "^$1\$" -v ./regress 2>&1 | tee "$out/$1.txt" |
		grep -E '^(\||#|- |$)' | cat -s
}
{
	table TestGateOperatingTable
	printf '\n### Runs recorded back to back (regress/testdata/noise)\n\n'
	table TestGatePowerTable
} | tee "$out/gate.md"
