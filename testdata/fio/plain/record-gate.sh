#!/bin/bash
# Records two 5 s fio 3.33 runs of one job, the second about 15x slower (fio's
# own rate_iops), for the gate's import-fio acceptance test: `stortest
# baseline import-fio` of both, then `baseline diff`, must call it a
# regression. Plain JSON, as most fio users keep. Run as root from this
# directory; needs fio and losetup.
set -euo pipefail
work=$(mktemp -d /dev/shm/stortest-record.XXXXXX)
loop=""
cleanup() { [[ -n $loop ]] && losetup -d "$loop"; rm -rf "$work"; }
trap cleanup EXIT

truncate -s 256M "$work/disk"
loop=$(losetup --find --show --direct-io=on "$work/disk")
job=(--output-format=json --name=randread-4k-qd32 --ioengine=io_uring --rw=randread --bs=4k
	--iodepth=32 --direct=1 --filename="$loop" --runtime=5 --time_based)
fio "${job[@]}" > gate-fast.json
fio "${job[@]}" --rate_iops=6000 > gate-slow.json
