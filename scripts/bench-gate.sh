#!/usr/bin/env bash
# The gate's power and false alarms on recorded real noise
# (regress/testdata/noise): for 2 s, 10 s and 30 s runs and baselines of
# one and three runs, how many unchanged comparisons are flagged and the
# smallest IOPS drop caught 9 times in 10.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
mkdir -p "$out"
STORTEST_GATE_TABLE=1 go test -count=1 -run '^TestGatePowerTable$' -v ./regress | grep '^|' | tee "$out/gate.md"
