#!/usr/bin/env python3
"""Side-by-side runs of fio 3.33 and stortest on the same targets.

Each case runs fio and stortest alternately (ROUNDS times each, so drift
of a noisy disk hits both), then prints the median IOPS of each, their
ratio, CPU time per I/O (user+system of the whole process, from rusage;
and of the job's thread alone, from the JSON's usr_cpu and sys_cpu, as
fio's cpu line) and the median clat p50. Run as root for the loop-device cases.

Usage: bench_fio.py STORTEST_BINARY OUTDIR
Environment: BENCH_ROUNDS (3), BENCH_RUNTIME (5 s), BENCH_CASES (all).
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RUNTIME = os.environ.get("BENCH_RUNTIME", "5")
# BENCH_CASES: comma-separated substrings; only matching cases run.
CASES = [c for c in os.environ.get("BENCH_CASES", "").split(",") if c]


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    doc = json.loads(out[out.index("{"):])
    job = doc["jobs"][0]["read"]
    ios = job["total_ios"]
    runtime_ms = job["runtime"]
    iops = ios * 1000.0 / runtime_ms if runtime_ms else 0.0
    p50 = job["clat_ns"].get("percentile", {}).get("50.000000", 0)
    j = doc["jobs"][0]
    job_cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] * 1e6  # ns
    return iops, cpu / max(ios, 1) * 1e9, p50, job_cpu / max(ios, 1)


def case(name, common, stortest_bin, fio_extra=()):
    if CASES and not any(c in name for c in CASES):
        return None
    fio = ["fio", "--output-format=json", "--name=" + name] + common + list(fio_extra)
    st = [stortest_bin, "run", "--progress=off", "--output-format=json", "--name=" + name] + common
    res = {"fio": [], "stortest": []}
    for _ in range(ROUNDS):
        res["fio"].append(run(fio))
        res["stortest"].append(run(st))
    row = {"case": name}
    for tool, rs in res.items():
        row[tool + "_iops"] = statistics.median(r[0] for r in rs)
        row[tool + "_cpu_ns"] = statistics.median(r[1] for r in rs)
        row[tool + "_p50"] = statistics.median(r[2] for r in rs)
        row[tool + "_job_cpu_ns"] = statistics.median(r[3] for r in rs)
    row["ratio"] = row["stortest_iops"] / row["fio_iops"] if row["fio_iops"] else 0
    row["p50_ratio"] = row["stortest_p50"] / row["fio_p50"] if row["fio_p50"] else 0
    return row


def main():
    stortest_bin, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="stortest-bench-")
    data = os.path.join(work, "data")
    loop = None
    rows = []
    try:
        with open(data, "wb") as f:
            for _ in range(256):
                f.write(os.urandom(1 << 20))
        # Warm the page cache for the cached-file case.
        with open(data, "rb") as f:
            while f.read(1 << 20):
                pass
        base = ["--bs=4k", "--rw=randread", "--time_based", "--runtime=" + RUNTIME]
        rows.append(case("null-4k", base + ["--ioengine=null", "--size=1g"], stortest_bin))
        rows.append(case("psync-4k-cached", base + ["--ioengine=psync", "--filename=" + data],
                         stortest_bin, fio_extra=["--invalidate=0"]))
        if os.geteuid() == 0:
            loop = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", data],
                                  check=True, capture_output=True, text=True).stdout.strip()
            dev = ["--filename=" + loop, "--direct=1"]
            rows.append(case("psync-4k-loop-dio", base + ["--ioengine=psync"] + dev, stortest_bin))
            rows.append(case("io_uring-4k-qd32-loop", base + ["--ioengine=io_uring", "--iodepth=32"] + dev, stortest_bin))
            rows.append(case("libaio-4k-qd32-loop", base + ["--ioengine=libaio", "--iodepth=32"] + dev, stortest_bin))
            # The same on a loop device over /dev/shm: no disk noise, and
            # the CPU, so each engine's own cost, sets the IOPS.
            if os.path.isdir("/dev/shm"):
                shm = tempfile.mkdtemp(prefix="stortest-bench-", dir="/dev/shm")
                shm_data = os.path.join(shm, "data")
                try:
                    with open(shm_data, "wb") as f:
                        for _ in range(256):
                            f.write(os.urandom(1 << 20))
                    shm_loop = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", shm_data],
                                              check=True, capture_output=True, text=True).stdout.strip()
                    try:
                        dev = ["--filename=" + shm_loop, "--direct=1"]
                        rows.append(case("psync-4k-shmloop", base + ["--ioengine=psync"] + dev, stortest_bin))
                        rows.append(case("io_uring-4k-qd32-shmloop", base + ["--ioengine=io_uring", "--iodepth=32"] + dev, stortest_bin))
                        # Both on fio's default path (stortest's default
                        # registers its buffers): the harnesses alone.
                        rows.append(case("io_uring-fixedbufs0", base + ["--ioengine=io_uring", "--iodepth=32"] + dev + ["--fixedbufs=0"],
                                         stortest_bin))
                        rows.append(case("libaio-4k-qd32-shmloop", base + ["--ioengine=libaio", "--iodepth=32"] + dev, stortest_bin))
                    finally:
                        subprocess.run(["losetup", "-d", shm_loop])
                finally:
                    if os.path.exists(shm_data):
                        os.remove(shm_data)
                    os.rmdir(shm)
        else:
            print("not root: loop-device cases skipped", file=sys.stderr)
    finally:
        if loop:
            subprocess.run(["losetup", "-d", loop])
        os.remove(data)
        os.rmdir(work)

    hdr = (f"{'case':24} {'fio IOPS':>11} {'stortest IOPS':>14} {'ratio':>6} {'fio CPU/IO':>11} {'st CPU/IO':>10} "
           f"{'fio job':>8} {'st job':>8} {'fio p50':>8} {'st p50':>8} {'p50 ratio':>9}")
    lines = [hdr]
    for r in filter(None, rows):
        lines.append(f"{r['case']:24} {r['fio_iops']:11.0f} {r['stortest_iops']:14.0f} {r['ratio']:6.2f} "
                     f"{r['fio_cpu_ns']:9.0f}ns {r['stortest_cpu_ns']:8.0f}ns {r['fio_job_cpu_ns']:6.0f}ns {r['stortest_job_cpu_ns']:6.0f}ns "
                     f"{r['fio_p50']:8.0f} {r['stortest_p50']:8.0f} {r['p50_ratio']:9.2f}")
    table = "\n".join(lines)
    print(f"fio vs stortest, {ROUNDS} alternating rounds of {RUNTIME}s each, medians; CPU/IO is the process's "
          f"CPU per I/O (rusage), job the job thread's (the JSON's usr_cpu+sys_cpu); p50 is clat in ns")
    print(table)
    with open(os.path.join(outdir, "fio-compare.txt"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(outdir, "fio-compare.json"), "w") as f:
        json.dump([r for r in rows if r], f, indent=2)


if __name__ == "__main__":
    main()
