#!/usr/bin/env python3
"""fio-corpus.py: other projects' fio job files under fio and under `stortest run`.

    scripts/fio-corpus.py [--corpus DIR] [--timeout S] [--json FILE] [FILE.fio ...]

The corpus (testdata/fio-corpus/<project>/*.fio, origins in its SOURCES) is
job files written by other projects. Each file is run twice, with the same
command line: `fio --output-format=json --output=OUT FILE` and
`stortest run --output-format=json --output=OUT FILE` (stortest built once
from ./cmd/stortest), each in a fresh scratch directory, with the project's
ENV file (KEY=VALUE lines: the variables its own harness sets, which fio
expands as ${KEY}) in the environment.

Both tools get the same shortened copy of the project's files (includes
too), written by shorten() below:
  - runtime and timeout become 1 s; ramp_time and startdelay above 1 s
    become 1 s;
  - size, filesize, io_size (io_limit) above 16 MiB become 16m (a share
    of the device, size=N%, stays: the device is 128 MiB), loops above 2
    become 2, numjobs above 4 become 4, nrfiles above 8 become 8;
  - filename= under /dev (but /dev/null and /dev/zero) is the scratch
    device, a 128 MiB loop device (a file without root); any other
    absolute file name moves into the scratch directory; directory= is
    the scratch directory. A device name left after that (/dev/sd*,
    /dev/nvme*, /dev/vd*, ...) in the copy or the environment stops the
    file: it is never run.
A job that is not time_based stays size-bound: only its sizes shrink. A
job is compared as size-bound when neither tool ran it up to its runtime
(and, in a file that sets time_based, when both ended it inside 0.8 s).

Printed: one line per file (OK, REFUSED with stortest's message -- "not
supported", or any error it places in the file, since fio ran it --, FAIL,
CRASH, HANG, or SKIP when fio itself does not run it here), then the
files fio runs, the share of those stortest runs, the refusals grouped by
the fio option stortest names, and every difference where both ran: the
job count (where it differs, the totals of all jobs, when all are
size-bound), and for each size-bound job that finished before its runtime
under both tools, the I/O count per direction (jobs[].read.total_ios,
write, trim) -- with random block sizes (bsrange, bssplit, bs=A-B) the
bytes are compared instead.

Exit status 1 only if stortest crashed (a panic, a Go runtime error, a
signal) or hung (past --timeout, default 60 s, where fio finished); 2 on
a usage or build error; 0 otherwise: refusals and differences are the
measure, not a failure. Nothing is left behind: the scratch directories,
the loop device and every process of each run (each runs in its own
session, and what is left of it is killed by pid) are removed.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV_SIZE = 128 << 20
SIZE_CAP = 16 << 20
RUNTIME = 1
RAMP_CAP = 1
LOOPS_CAP = 2
NUMJOBS_CAP = 4
NRFILES_CAP = 8
# Device names a job file must never reach, whatever it says.
REAL_DEV = re.compile(r"/dev/(sd[a-z]|nvme\d|vd[a-z]|xvd[a-z]|hd[a-z]|mmcblk\d|dm-\d|md\d|disk/|mapper/|pmem\d|dax\d|sg\d|ng\d)")


# ---------------------------------------------------------------- values

def expand(val, env):
    """val with ${VAR} replaced from env, as fio does (unknown ones stay)."""
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: env.get(m.group(1), m.group(0)), val)


def parse_bytes(val):
    """fio's size syntax (1024-based suffixes), or None when it is not one."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*", val, re.I)
    if not m:
        return None
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}[m.group(2).lower()]
    return float(m.group(1)) * mult


def parse_secs(val):
    """fio's time syntax (seconds by default), or None."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*", val, re.I)
    if not m:
        return None
    mult = {None: 1, "us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1, "sec": 1,
            "m": 60, "min": 60, "h": 3600, "d": 86400}[m.group(2).lower() if m.group(2) else None]
    return float(m.group(1)) * mult


def parse_int(val):
    m = re.fullmatch(r"\s*(\d+)\s*", val)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- shortening

def split_value(rest):
    """The value of 'key=value ; comment', and whether a comment followed."""
    m = re.match(r"([^;#]*?)\s*([;#].*)?$", rest)
    return m.group(1).strip()


def target(val, dev, scratch):
    """filename= value with devices replaced by dev and absolute paths moved."""
    parts = val.replace("\\:", "\x01").split(":")
    out = []
    for p in parts:
        p = p.replace("\x01", "\\:")
        if p in ("/dev/null", "/dev/zero"):
            pass
        elif p.startswith("/dev/"):
            p = dev
        elif p.startswith("/"):
            p = os.path.join(scratch, os.path.basename(p.rstrip("/")) or "file")
        out.append(p)
    return ":".join(out)


def shorten(text, env, dev, scratch):
    """The shortened job file text (see the module's doc)."""
    out = []
    cap = max(SIZE_CAP, max_bs(expand(text, env)))
    for line in text.splitlines():
        m = re.match(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", line)
        if not m:
            out.append(line)
            continue
        key, val = m.group(2).lower(), split_value(m.group(3))
        ev = expand(val, env)
        new = None
        if key in ("runtime", "timeout"):
            new = str(RUNTIME)
        elif key in ("ramp_time", "startdelay"):
            s = parse_secs(ev)
            if s is not None and s > RAMP_CAP:
                new = str(RAMP_CAP)
        elif key in ("size", "filesize", "io_size", "io_limit"):
            b = parse_bytes(ev)
            if b is not None and b > cap:
                new = str(int(cap))
        elif key == "loops":
            n = parse_int(ev)
            if n is not None and n > LOOPS_CAP:
                new = str(LOOPS_CAP)
        elif key == "numjobs":
            n = parse_int(ev)
            if n is not None and n > NUMJOBS_CAP:
                new = str(NUMJOBS_CAP)
        elif key == "nrfiles":
            n = parse_int(ev)
            if n is not None and n > NRFILES_CAP:
                new = str(NRFILES_CAP)
        elif key == "filename":
            t = target(ev, dev, scratch)
            if t != ev:
                new = t
        elif key == "directory":
            new = scratch
        out.append(line if new is None else m.group(1) + key + "=" + new)
    return "\n".join(out) + "\n"


def is_job_file(text):
    """A file with a [section]: a fragment without one is only included."""
    return any(re.match(r"^\s*\[[^\]]+\]", l) for l in text.splitlines())


def read_args(path, dev, scratch):
    """The options a project's harness passes after the job file (ARGS)."""
    words = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if not line.strip().startswith("#"):
                    words += shlex.split(line)
    return [w.replace("@DIR@", scratch).replace("@DEV@", dev) for w in words]


def max_bs(text):
    """The largest block size a file names (a size cap stays above it)."""
    m = 0
    for line in text.splitlines():
        r = re.match(r"^\s*(bs|blocksize|bsrange|blocksize_range|bssplit)\s*=\s*(.*)$", line, re.I)
        if r:
            for v in re.split(r"[-,:/]", split_value(r.group(2))):
                b = parse_bytes(v)
                if b is not None and b > m:
                    m = b
    return m


def read_env(path, dev, scratch):
    env = {}
    if not os.path.exists(path):
        return env
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                raise SystemExit(f"{path}:{n}: want KEY=VALUE, got {line!r}")
            k, v = line.split("=", 1)
            env[k.strip()] = v.strip().replace("@DIR@", scratch).replace("@DEV@", dev)
    return env


# ---------------------------------------------------------------- running

def procs_of_session(sid):
    """Pids of live processes in session sid (a run's own session)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(")") + 2:].split()
        # fields[0] is state, [1] ppid, [2] pgrp, [3] session
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(d))
    return pids


def kill_session(sid):
    for _ in range(50):
        pids = procs_of_session(sid)
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def run(argv, cwd, env, timeout):
    """(returncode, stdout, stderr, hung): returncode is -N for signal N."""
    with open(os.path.join(cwd, "..", "stdout"), "w+") as so, open(os.path.join(cwd, "..", "stderr"), "w+") as se:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=so, stderr=se, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        hung = False
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            hung = True
            try:
                p.send_signal(signal.SIGTERM)
                rc = p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
        finally:
            # Also when this script is interrupted: nothing of the run stays.
            if p.poll() is None:
                p.kill()
                p.wait()
            kill_session(p.pid)
        so.seek(0)
        se.seek(0)
        return rc, so.read(), se.read(), hung


def load_json(path):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    i = text.find("{")
    if i < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[i:])[0]
    except ValueError:
        return None


def first_line(text, pattern=r"not supported|error|fail|invalid|unknown|bad|usage|denied|no such|panic"):
    for l in text.splitlines():
        if re.search(pattern, l, re.I):
            return l.strip()
    for l in text.splitlines():
        if l.strip():
            return l.strip()
    return "(no output)"


# Where stortest places a job file's error: "FILE:LINE: " or "args[N]: ".
POSITION = re.compile(r"(?:workload: )?(?:\S+:\d+|args\[\d+\]): ")


def refusal(stderr):
    """The first line of a stortest refusal, or None: a refusal is an error
    that says "not supported", or any error stortest's parser places in the
    job file (FILE:LINE), since fio ran that same file."""
    for l in stderr.splitlines():
        if "not supported" in l or POSITION.search(l):
            return l.strip()
    return None


def refused_option(line):
    """The fio option a stortest refusal names."""
    m = POSITION.search(line)
    what = line[m.end():] if m else line
    what = re.sub(r'^job "[^"]*": ', "", what).strip()
    field = None
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*): (.*)$", what)
    if m and not what.startswith("fio "):
        field, what = m.group(1), m.group(2)
    if what.startswith("include directives"):
        return "include"
    m = re.match(r"fio option (\S+)", what)
    if m:
        return m.group(1)
    m = re.match(r"fio ioengine (\S+)", what)
    if m:
        return "ioengine=" + m.group(1)
    m = re.match(r"fio's keyword \$?(\S+)", what)
    if m:
        return f"{field or 'a value'} with ${m.group(1)}"
    if what.startswith("the arithmetic expression"):
        return f"{field or 'a value'} with arithmetic"
    if field:
        return field
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(=|:| |$)", what)
    return m.group(1) if m else what


# ---------------------------------------------------------------- comparing

def job_options(data, job):
    opts = dict(data.get("global options") or {})
    opts.update(job.get("job options") or {})
    return opts


def truthy(v):
    return v is not None and str(v).strip().lower() not in ("0", "false", "no", "off")


def random_bs(opts):
    if any(k in opts for k in ("bsrange", "blocksize_range", "bssplit")):
        return True
    for k in ("bs", "blocksize"):
        v = str(opts.get(k, ""))
        if "-" in v or ":" in v:
            return True
    return False


def cut_by_runtime(opts, job):
    """Whether a job ran up to its runtime (so its counts are the clock's)."""
    rt = parse_secs(str(opts.get("runtime", ""))) if "runtime" in opts else None
    if rt is None:
        return False
    return job.get("job_runtime", 0) >= 0.8 * rt * 1000


def compare(fdata, sdata, timed=False):
    """(job-count difference or None, [differences], compared, excepted).
    timed: the file sets time_based somewhere (fio's JSON does not list an
    option given without a value), so only the jobs that both tools ended
    well inside the runtime are taken as size-bound."""
    fj, sj = fdata.get("jobs") or [], sdata.get("jobs") or []
    diffs = []
    count = None
    if len(fj) != len(sj):
        count = f"job count: fio {len(fj)}, stortest {len(sj)}"
    fn, sn = [j.get("jobname") for j in fj], [j.get("jobname") for j in sj]
    if fn != sn:
        diffs.append(f"job names: fio {fn}, stortest {sn}")
    compared = excepted = 0
    if count:
        # Jobs that fio merges (group_reporting) and stortest does not, or
        # the other way round, cannot be paired: the totals of all jobs are
        # compared instead, when every job is size-bound.
        def bound(data, j):
            o = job_options(data, j)
            return not (truthy(o.get("time_based")) or cut_by_runtime(o, j) or
                        (timed and j.get("job_runtime", 0) >= 0.8 * RUNTIME * 1000))
        if fj and sj and all(bound(fdata, j) for j in fj) and all(bound(sdata, j) for j in sj):
            compared = 1
            what = []
            for d in ("read", "write", "trim"):
                fi = sum((j.get(d) or {}).get("total_ios", 0) for j in fj)
                si = sum((j.get(d) or {}).get("total_ios", 0) for j in sj)
                if fi != si:
                    what.append(f"{d} I/Os fio {fi} stortest {si}")
            if what:
                diffs.append("size-bound jobs, all together: " + ", ".join(what))
        return count, diffs, compared, excepted
    for i, (a, b) in enumerate(zip(fj, sj)):
        fo, so = job_options(fdata, a), job_options(sdata, b)
        if truthy(fo.get("time_based")) if "time_based" in fo else False:
            continue
        if cut_by_runtime(fo, a) or cut_by_runtime(so, b):
            continue
        if timed and max(a.get("job_runtime", 0), b.get("job_runtime", 0)) >= 0.8 * RUNTIME * 1000:
            continue
        name = a.get("jobname", str(i))
        compared += 1
        what = []
        for d in ("read", "write", "trim"):
            fi, si = (a.get(d) or {}).get("total_ios", 0), (b.get(d) or {}).get("total_ios", 0)
            fb, sb = (a.get(d) or {}).get("io_bytes", 0), (b.get(d) or {}).get("io_bytes", 0)
            if random_bs(fo):
                if fb != sb:
                    what.append(f"{d} bytes fio {fb} stortest {sb}")
            elif fi != si:
                what.append(f"{d} I/Os fio {fi} stortest {si}")
        if random_bs(fo) and not what:
            excepted += 1
        if what:
            diffs.append(f'size-bound job "{name}": ' + ", ".join(what))
    return count, diffs, compared, excepted


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.path.join(REPO, "testdata", "fio-corpus"))
    ap.add_argument("--timeout", type=float, help="seconds fio may take (default 120); stortest gets as much, or 4 times fio's time and 10 s", default=float(os.environ.get("FIO_CORPUS_TIMEOUT", 120)))
    ap.add_argument("--fio", default=os.environ.get("FIO", "fio"))
    ap.add_argument("--json", help="also write the per-file results to this file")
    ap.add_argument("files", nargs="*", help="corpus files (project/file.fio), default all")
    args = ap.parse_args()

    corpus = os.path.abspath(args.corpus)
    files = args.files or sorted(
        os.path.join(p, f) for p in os.listdir(corpus) if os.path.isdir(os.path.join(corpus, p))
        for f in os.listdir(os.path.join(corpus, p)) if f.endswith(".fio"))
    try:
        fio_version = subprocess.run([args.fio, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError as e:
        print(f"fio-corpus: {args.fio}: {e}", file=sys.stderr)
        return 2

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    tmp = tempfile.mkdtemp(prefix="fio-corpus.", dir="/var/tmp")
    loop = None
    results = []
    try:
        st = os.path.join(tmp, "stortest")
        b = subprocess.run(["go", "build", "-o", st, "./cmd/stortest"], cwd=REPO)
        if b.returncode != 0:
            print("fio-corpus: go build ./cmd/stortest failed", file=sys.stderr)
            return 2
        img = os.path.join(tmp, "dev.img")
        with open(img, "wb") as f:
            f.truncate(DEV_SIZE)
        dev = img
        if os.geteuid() == 0 and shutil.which("losetup"):
            r = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True)
            if r.returncode == 0:
                loop = dev = r.stdout.strip()

        for rel in files:
            r = one(rel, corpus, tmp, dev, st, args, fio_version)
            results.append(r)
            show(r)
    finally:
        if loop:
            subprocess.run(["losetup", "-d", loop])
        shutil.rmtree(tmp, ignore_errors=True)

    return summary(results, fio_version, args)


def one(rel, corpus, tmp, dev, st, args, fio_version):
    project, name = os.path.split(rel)
    src = os.path.join(corpus, project)
    with open(os.path.join(corpus, rel), errors="replace") as f:
        text = f.read()
    res = {"file": rel, "status": None}
    if not is_job_file(text):
        res["status"] = "FRAGMENT"
        return res
    out = {}
    for tool in ("fio", "stortest"):
        base = os.path.join(tmp, "run", tool)
        shutil.rmtree(os.path.join(tmp, "run"), ignore_errors=True) if tool == "fio" else None
        jobs, data = os.path.join(base, "jobs"), os.path.join(base, "data")
        os.makedirs(jobs)
        os.makedirs(data)
        env = dict(os.environ)
        penv = read_env(os.path.join(src, "ENV"), dev, data)
        env.update(penv)
        extra = read_args(os.path.join(src, "ARGS"), dev, data)
        if any(a.startswith("--time_based") for a in extra):
            res["timed"] = True
        unsafe = [f"{k}={v}" for k, v in penv.items() if REAL_DEV.search(v)]
        unsafe += [a for a in extra if REAL_DEV.search(a)]
        # The project's files, shortened the same way for both tools, so
        # that includes find theirs beside them.
        for f in os.listdir(src):
            if f.endswith(".fio"):
                with open(os.path.join(src, f), errors="replace") as fh:
                    s = shorten(fh.read(), env, dev, data)
                with open(os.path.join(jobs, f), "w") as fh:
                    fh.write(s)
                if re.search(r"^\s*time_based\s*($|[;#]|=\s*[1-9a-zA-Z])", s, re.M) and (f == name or not is_job_file(s)):
                    res["timed"] = True
                if f == name:
                    unsafe += [l.strip() for l in s.splitlines() if REAL_DEV.search(l) and not
                               re.match(r"^\s*([#;]|\[[^/])", l)]
        if unsafe:
            res["status"] = "UNSAFE"
            res["why"] = "a device name after shortening: " + unsafe[0]
            return res
        outjson = os.path.join(base, "out.json")
        if tool == "fio":
            argv = [args.fio, "--output-format=json", "--output=" + outjson, os.path.join(jobs, name)] + extra
        else:
            argv = [st, "run", "--output-format=json", "--output=" + outjson, os.path.join(jobs, name)] + extra
        t0 = time.monotonic()
        limit = args.timeout if tool == "fio" else max(args.timeout, 4 * out["fio"][5] + 10)
        rc, so, se, hung = run(argv, data, env, limit)
        out[tool] = (rc, so, se, hung, load_json(outjson), time.monotonic() - t0)
        if tool == "fio" and (rc != 0 or hung):
            res["status"] = "SKIP"
            res["why"] = f"did not finish in {args.timeout:g} s" if hung else first_line(se) if se.strip() else first_line(so)
            return res
    rc, so, se, hung, sdata, secs = out["stortest"]
    res["seconds"] = round(secs, 1)
    crash = re.search(r"^(panic: |fatal error: |runtime error: |goroutine \d+ \[)", se, re.M)
    if hung:
        res["status"] = "HANG"
        res["why"] = f"did not finish in {max(args.timeout, 4 * out['fio'][5] + 10):.0f} s (fio took {out['fio'][5]:.1f} s)"
    elif crash or rc < 0:
        res["status"] = "CRASH"
        res["why"] = crash.group(0) + first_line(se[crash.start():], r".") if crash else f"killed by signal {-rc}"
    elif rc == 0:
        res["status"] = "OK"
    elif refusal(se):
        res["status"] = "REFUSED"
        res["why"] = refusal(se)
        res["option"] = refused_option(res["why"])
    else:
        res["status"] = "FAIL"
        res["why"] = f"exit {rc}: " + first_line(se)
    fdata = out["fio"][4]
    if res["status"] == "OK":
        if fdata is None or sdata is None:
            res["diffs"] = ["no JSON from " + ("fio" if fdata is None else "stortest")]
        else:
            count, diffs, compared, excepted = compare(fdata, sdata, res.get("timed", False))
            res["count"] = count
            res["diffs"] = diffs
            res["compared"] = compared
            res["excepted"] = excepted
    return res


def show(r):
    """One file's line, and its differences below it, as it ends."""
    if r["status"] == "FRAGMENT":
        return
    line = f"{r['status']:9}{r['file']}"
    if r.get("why"):
        line += ": " + r["why"]
    print(line)
    if r.get("count"):
        print(f"{'':9}  {r['count']}")
    for d in r.get("diffs") or []:
        print(f"{'':9}  {d}")
    sys.stdout.flush()


def summary(results, fio_version, args):
    jobfiles = [r for r in results if r["status"] != "FRAGMENT"]
    fiook = [r for r in jobfiles if r["status"] not in ("SKIP", "UNSAFE")]
    by = {}
    for r in fiook:
        by.setdefault(r["status"], []).append(r)
    ok = len(by.get("OK", []))
    projects = {r["file"].split("/")[0] for r in jobfiles}
    fioprojects = {r["file"].split("/")[0] for r in fiook}
    print()
    print(f"corpus: {len(jobfiles)} job files from {len(projects)} projects "
          f"({len(results) - len(jobfiles)} include fragments not run alone)")
    print(f"{fio_version} runs {len(fiook)} of them, from {len(fioprojects)} projects "
          f"({len([r for r in jobfiles if r['status'] == 'SKIP'])} skipped, "
          f"{len([r for r in jobfiles if r['status'] == 'UNSAFE'])} unsafe)")
    skips = {}
    for r in jobfiles:
        if r["status"] == "SKIP":
            why = re.sub(r"/\S+", "PATH", r.get("why", ""))
            why = re.sub(r"\d+", "N", why)
            skips.setdefault(why, []).append(r["file"])
    if skips:
        print("fio does not run here:")
        for why, fs in sorted(skips.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {len(fs):3}  {why[:100]}  ({', '.join(fs[:2])}{', ...' if len(fs) > 2 else ''})")
    pct = 100.0 * ok / len(fiook) if fiook else 0
    print(f"stortest runs {ok} of {len(fiook)} ({pct:.0f}%); refused {len(by.get('REFUSED', []))}, "
          f"failed {len(by.get('FAIL', []))}, crashed {len(by.get('CRASH', []))}, hung {len(by.get('HANG', []))}")
    refusals = {}
    for r in by.get("REFUSED", []):
        refusals.setdefault(r["option"], []).append(r["file"])
    if refusals:
        print("refusals by option:")
        for opt, fs in sorted(refusals.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {len(fs):3}  {opt}  ({', '.join(fs[:3])}{', ...' if len(fs) > 3 else ''})")
    both = by.get("OK", [])
    counts = [r for r in both if r.get("count")]
    compared = sum(r.get("compared", 0) for r in both)
    excepted = sum(r.get("excepted", 0) for r in both)
    differ = [d for r in both for d in r.get("diffs") or [] if d.startswith("size-bound")]
    print(f"where both ran ({len(both)} files): job count differs in {len(counts)}; "
          f"size-bound jobs compared {compared}, I/O counts equal in {compared - len(differ)} "
          f"({excepted} by bytes, random block sizes), differ in {len(differ)}")
    for r in both:
        for d in ([r["count"]] if r.get("count") else []) + (r.get("diffs") or []):
            print(f"  {r['file']}: {d}")
    names = [r for r in both if any(d.startswith("job names") for d in r.get("diffs") or [])]
    print(f"job names differ in {len(names)} files")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"fio": fio_version, "results": results}, f, indent=1)
    bad = by.get("CRASH", []) + by.get("HANG", [])
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
