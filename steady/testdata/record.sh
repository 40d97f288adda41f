#!/bin/sh
# Records the fio 3.33 JSON outputs that steady's tests recompute
# (fio_*.json). Each run is short (10-20 s), rate limited so it costs little
# CPU, and works on a 16 MiB file in a tmpfs directory that is removed at the
# end. Re-recording gives different numbers; the tests only assert that
# stortest recomputes what fio printed, so any recording works.
#
# usage: sh steady/testdata/record.sh   (from the repository root, or anywhere)
set -eu
out=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /dev/shm/stortest-steady.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM

fio --version | grep -q '^fio-3.33$' || echo "warning: recorded with $(fio --version), tests expect fio-3.33 formatting" >&2

common="--filename=$dir/data --size=16m --bs=4k --ioengine=psync --time_based --invalidate=0 --output-format=json"

# iops deviation in percent of the mean: attained after the window fills.
fio --name=iops-pct --rw=randread --rate_iops=2000 --runtime=15 \
	--ss=iops:5% --ss_dur=5 $common --output="$out/fio_iops_pct.json"

# iops deviation, absolute limit of 0.5 IOPS: a rate-limited job jitters
# by a few IOPS each second, so it is never attained and runs to the end.
fio --name=iops-abs --rw=randread --rate_iops=3000 --runtime=12 \
	--ss=iops:0.5 --ss_dur=5 $common --output="$out/fio_iops_abs.json"

# iops slope in percent of the mean, with a ramp of 3 s.
fio --name=iops-slope-pct --rw=randwrite --rate_iops=1500 --runtime=20 \
	--ss=iops_slope:0.3% --ss_dur=5 --ss_ramp=3 $common --output="$out/fio_iops_slope_pct.json"

# bandwidth deviation in percent, 64 KiB sequential reads.
fio --name=bw-pct --rw=read --rate=40m --runtime=15 \
	--ss=bw:2% --ss_dur=6 $common --bs=64k --output="$out/fio_bw_pct.json"

# bandwidth slope, absolute limit with a size suffix (bytes/s per second).
fio --name=bw-slope-abs --rw=write --rate=20m --runtime=15 \
	--ss=bw_slope:20k --ss_dur=5 $common --bs=16k --output="$out/fio_bw_slope_abs.json"

# bandwidth slope, absolute, without a rate limit: the slope of an
# unthrottled tmpfs job is far above 1 KiB/s per second, so it is not
# attained (this one costs a core for 10 s).
fio --name=bw-slope-free --rw=write --runtime=10 \
	--ss=bw_slope:1k --ss_dur=5 $common --bs=64k --output="$out/fio_bw_slope_free.json"

# a run shorter than the window: fio never evaluates the criterion and
# prints zeros with a half-filled window.
fio --name=short --rw=randread --rate_iops=1000 --runtime=3 \
	--ss=iops:5% --ss_dur=5 $common --output="$out/fio_window_not_full.json"

# iops slope in percent without a rate limit: a real, non-zero slope
# percentage (divided by the floor of the mean); costs a core for 8 s.
fio --name=iops-slope-free --rw=randread --runtime=8 \
	--ss=iops_slope:0.05% --ss_dur=5 $common --output="$out/fio_iops_slope_free.json"

# two jobs in one output (new_group keeps their steady-state options
# apart): a tight slope limit, attained only because the rate limiter makes
# every second the same, and a loose bandwidth deviation.
fio --output-format=json --output="$out/fio_two_jobs.json" - <<JOB
[global]
filename=$dir/data
size=16m
ioengine=psync
time_based
invalidate=0
runtime=10
ss_dur=5
[slope-tight]
rw=randread
bs=4k
rate_iops=2500
ss=iops_slope:0.001%
[bw-loose]
new_group
rw=randwrite
bs=8k
rate=10m
ss=bw:10%
JOB
