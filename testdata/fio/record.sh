#!/bin/bash
# Records the fio 3.33 json+ outputs used as reference data by the latency
# package and `stortest fio pctiles` tests. Run as root from this directory;
# needs fio and losetup. Each run is short; the outputs are committed.
set -euo pipefail
work=$(mktemp -d)
loop=""
cleanup() { [[ -n $loop ]] && losetup -d "$loop"; rm -rf "$work"; }
trap cleanup EXIT

truncate -s 256M "$work/disk"
loop=$(losetup --find --show --direct-io=on "$work/disk")

common=(--output-format=json+ --group_reporting=0)

# Buffered psync random read/write mix on a file.
fio "${common[@]}" --name=psync-randrw --ioengine=psync --rw=randrw --rwmixread=70 \
    --bs=4k --size=64M --filename="$work/file" --runtime=3 --time_based \
    > psync-randrw.json

# io_uring at depth 32 on a direct-I/O loop device, with lat and slat percentiles.
fio "${common[@]}" --name=uring-qd32 --ioengine=io_uring --rw=randread --bs=4k \
    --iodepth=32 --direct=1 --filename="$loop" --runtime=3 --time_based \
    --lat_percentiles=1 --slat_percentiles=1 > uring-qd32-lat.json

# The null engine: millions of samples in few buckets.
fio "${common[@]}" --name=null --ioengine=null --rw=randread --bs=4k --size=1G \
    --runtime=2 --time_based > null.json

# A custom percentile list with values whose thresholds are not integers.
fio "${common[@]}" --name=custom-list --ioengine=psync --rw=randwrite --bs=4k \
    --size=32M --filename="$work/file2" --runtime=2 --time_based \
    --percentile_list=1:25:33.333:50:60:66.6:75:90:99:99.5:99.9:99.95:99.99:99.999:100 \
    > custom-list.json

# Few samples (N=25 reads) where float64 p/100*N and fio's arithmetic differ.
fio "${common[@]}" --name=tiny --ioengine=psync --rw=read --bs=4k --size=100k \
    --filename="$work/file3" \
    --percentile_list=4:8:12:20:24:28:36:40:44:52:56:60:68:72:76:84:88:92:96:100 \
    > tiny-n25.json

# Two jobs in one file (several jobs, several directions).
fio "${common[@]}" --ioengine=psync --bs=4k --size=16M --runtime=1 --time_based \
    --name=two-a --rw=randread --filename="$work/file4" \
    --name=two-b --rw=randwrite --filename="$work/file5" > two-jobs.json

# N=2000, where float64 and fio's arithmetic differ at p=99.95.
fio "${common[@]}" --name=n2000 --ioengine=psync --rw=read --bs=4k --size=8000k \
    --filename="$work/file6" \
    --percentile_list=25:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99:100 > n2000.json
