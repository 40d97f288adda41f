#!/usr/bin/env bash
# Records histogram logs of fio 3.33 under fio/, writes synthetic logs
# for the tool's corner cases under edge/, and records what fio's own
# fio-histo-log-pctiles.py prints for them under pctiles/ (first line:
# the tool's arguments). The tests compare histlog.FioPctiles and
# `stortest hist merge --format fio` with these outputs.
#
# Needs fio 3.33 (Debian 12's package, which also ships the Python tool
# gzipped in /usr/share/doc/fio) and python3. Run from this directory:
#   bash record.sh
set -euo pipefail
export TZ=UTC # the tool prints the start of epoch-time logs in local time
cd "$(dirname "$0")"
tool=/usr/share/doc/fio/fio-histo-log-pctiles.py.gz
fio --version

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 4 jobs of mixed random I/O, one histogram row per direction per second.
# O_DIRECT keeps the latencies those of the device rather than the page
# cache, so the distributions spread over many buckets.
rm -rf fio && mkdir fio
(cd "$tmp" && fio --name=h --ioengine=psync --rw=randrw --bs=4k --size=16M \
	--direct=1 --numjobs=4 --runtime=6 --time_based \
	--write_hist_log=h --log_hist_msec=1000 --filename="$tmp/data" \
	--output-format=terse >/dev/null)
cp "$tmp"/h_clat_hist.*.log fio/

zcat "$tool" >"$tmp/pctiles.py"
rm -rf pctiles && mkdir pctiles
logs=(fio/h_clat_hist.1.log fio/h_clat_hist.2.log fio/h_clat_hist.3.log fio/h_clat_hist.4.log)
# Each output file's first line is the option set it was made with (the
# test reads it back); the rest is what the tool printed.
# Arguments after the name are the tool's, files last.
run() {
	local name=$1
	shift
	{
		echo "# $*"
		python3 "$tmp/pctiles.py" "$@"
	} >"pctiles/$name.txt"
}
run default "${logs[@]}"
run q2-p50-90-99 --time-quantum 2 --percentiles 50 90 99 -- "${logs[@]}"
run msec-lhm --output-unit msec --log-hist-msec 1000 --percentiles 0 25 50 75 99.9 99.95 100 -- "${logs[@]}"
run one-file-q3 --time-quantum 3 -- fio/h_clat_hist.3.log

# Synthetic logs for the tool's corners: unix-epoch times with different
# starts (rows before the common start, which the tool indexes from the
# end of its quanta), no log_hist_msec (start from the second row), a
# quantum not dividing the span, a repeated row, logs running past the
# common end, fio 2's 1216 microsecond buckets, unsorted and repeated
# percentiles. Deterministic (seeded).
rm -rf edge && mkdir edge
python3 - <<'PY'
import random
random.seed(4)
def log(path, t0, rows, cols=1856, step=1000, dup_at=None, lo=300, hi=700):
    with open(path, 'w') as f:
        t = t0
        for k in range(rows):
            dirs = [0, 1] if random.random() < 0.5 else [1, 0]
            for d in dirs:
                c = [0] * cols
                for _ in range(random.randint(50, 400)):
                    c[min(int(random.gauss((lo + hi) / 2, (hi - lo) / 6)), cols - 1)] += 1
                f.write('%d, %d, 4096, %s\n' % (t, d, ', '.join(map(str, c))))
                if k == dup_at and d == dirs[-1]:
                    f.write('%d, %d, 4096, %s\n' % (t, d, ', '.join(map(str, c))))
            t += step + random.randint(0, 30)
log('edge/epoch-a.log', 1700000000123, 8)
log('edge/epoch-b.log', 1700000000623, 6)
log('edge/epoch-c.log', 1700000001400, 7)
log('edge/rel-dup.log', 1003, 8, dup_at=3)
log('edge/rel-short.log', 1010, 4, step=1100)
log('edge/fio2-a.log', 1001, 5, cols=1216, lo=100, hi=500)
log('edge/fio2-b.log', 1002, 6, cols=1216, lo=150, hi=400)
PY
epoch=(edge/epoch-a.log edge/epoch-b.log edge/epoch-c.log)
rel=(edge/rel-dup.log edge/rel-short.log)
run epoch-lhm --log-hist-msec 1000 -- "${epoch[@]}"
run epoch-second-row "${epoch[@]}"
run epoch-q3 --time-quantum 3 --log-hist-msec 1000 --output-unit msec -- "${epoch[@]}"
run rel-dup-unsorted --percentiles 99 50 50 99.95 0 -- "${rel[@]}"
run fio2 --fio-version 2 --percentiles 1 50 99.99 100 --output-unit msec -- edge/fio2-a.log edge/fio2-b.log
