#!/usr/bin/env python3
"""Try to break stortest as a demanding user would, and count what happens.

Usage: python3 scripts/trial.py [--bin STORTEST] [--fio FIO] [--only CATEGORY] [-v]

Each case runs the stortest command line on bad input or under a fault, in a
directory of its own with TMPDIR pointing inside it, under a time limit.
Where fio 3.33 takes the same input (job files, fio options), fio decides
what is right: a job fio refuses must be refused, and one fio runs must run
or be refused by name. Other cases carry their own expectation.

Every case ends in one of: ok (ran as it should), clear error (refused,
naming what is wrong, with a non-zero exit), panic, hang, silent wrong (exit
0 where an error was due, a wrong figure, or an unclear error), data lost
(a file kept before the case is gone or changed), leftovers (files in the
case's TMPDIR or the working tree, loop devices, mounts, processes).
The table at the end has one row per category; the exit status is 1 when
any case panicked, hung, was silently wrong, lost data or left something.
Needs root for the device, tmpfs and unprivileged-user categories (they
are skipped without it, and the table says so).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANIC = re.compile(r"^(panic:|fatal error:)|goroutine \d+ \[", re.M)
OUTCOMES = ["ok", "clear error", "panic", "hang", "silent wrong", "data lost", "leftovers"]


class Case:
    def __init__(self, cat, name, argv, expect="error", timeout=30, files=None,
                 check=None, stdin=None, fio_job=None, fio_argv=None, signal_after=None,
                 sig=None, need_root=False, mention=None, keep=None, user=None):
        self.cat, self.name, self.argv = cat, name, argv
        self.expect = expect          # "error", "ok", "fio" (fio decides), "any"
        self.timeout = timeout
        self.files = files or {}      # name -> bytes or str, written in the case dir
        self.check = check            # f(res, dir) -> None or (outcome, detail)
        self.stdin = stdin
        self.fio_argv = fio_argv      # fio's argv for the "fio" expectation
        self.signal_after, self.sig = signal_after, sig
        self.need_root = need_root
        self.mention = mention        # a string a clear error must contain
        self.keep = keep or []        # files that must be unchanged afterwards
        self.user = user


class Result:
    def __init__(self, rc, out, err, secs, hung):
        self.rc, self.out, self.err, self.secs, self.hung = rc, out, err, secs, hung


def run(argv, cwd, env, timeout, stdin=None, signal_after=None, sig=None, user=None):
    kw = {}
    if user is not None:
        kw["user"] = user
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **kw)
    hung = False
    try:
        if signal_after is not None:
            try:
                p.wait(timeout=signal_after)
            except subprocess.TimeoutExpired:
                for s in (sig if isinstance(sig, list) else [sig]):
                    p.send_signal(s)
                    time.sleep(0.3)
        out, err = p.communicate(input=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(p.pid, signal.SIGKILL)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            # A descendant in a session of its own holds the pipes.
            p.stdout.close()
            p.stderr.close()
            p.wait()
            out, err = b"", b""
    return Result(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                  time.monotonic() - t0, hung)


# Only the trial's own loop devices and mounts count: others on the machine
# come and go on their own.
WORK_PREFIX = os.path.join(tempfile.gettempdir(), "stortest-trial-")


def losetup_list():
    try:
        lines = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
    except FileNotFoundError:
        return set()
    return {l for l in lines if "stortest-trial-" in l}


def mounts():
    with open("/proc/mounts") as f:
        return {l for l in f.read().splitlines() if "stortest-trial-" in l}


def snapshot_tree(d):
    out = {}
    for base, dirs, files in os.walk(d):
        for n in files + dirs:
            p = os.path.join(base, n)
            out[os.path.relpath(p, d)] = os.path.isdir(p)
    return out


class Trial:
    def __init__(self, args):
        self.bin = args.bin
        self.fio = args.fio if shutil.which(args.fio or "") else None
        self.verbose = args.verbose
        self.root = os.geteuid() == 0
        self.rows = {}
        self.notes = []
        self.work = tempfile.mkdtemp(prefix="stortest-trial-")
        self.fio_cache = {}
        self.fio_differs = []
        self.fio_same_slow = []

    def fio_verdict(self, case, d, env):
        """fio's exit status on the same input, 0 meaning it ran."""
        if not self.fio or case.fio_argv is None:
            return None
        key = json.dumps([case.fio_argv, sorted(case.files.items()) if all(isinstance(v, str) for v in case.files.values()) else case.name])
        if key in self.fio_cache:
            return self.fio_cache[key]
        fd = tempfile.mkdtemp(dir=self.work)
        write_files(fd, case.files)
        # Threads, not processes: fio's job processes start sessions of
        # their own, which a time limit could not end.
        r = run([self.fio, "--thread"] + case.fio_argv, fd, env, 60)
        shutil.rmtree(fd, ignore_errors=True)
        v = "hang" if r.hung else r.rc
        self.fio_cache[key] = v
        return v

    def one(self, case):
        if case.need_root and not self.root:
            self.count(case.cat, None, case, "needs root")
            return
        if isinstance(case, Scenario):
            d = tempfile.mkdtemp(dir=self.work, prefix="scenario-")
            os.chmod(self.work, 0o755)
            os.chmod(d, 0o755)
            os.makedirs(os.path.join(d, "tmp"))
            os.chmod(os.path.join(d, "tmp"), 0o1777)
            env = dict(os.environ, TMPDIR=os.path.join(d, "tmp"), NO_COLOR="1")
            loops0, mounts0 = losetup_list(), mounts()
            try:
                results = case.body(self, d, env)
            except Exception as e:  # the trial's own failure, not stortest's
                results = [("hang" if isinstance(e, subprocess.TimeoutExpired) else "silent wrong", "trial: %r" % e)]
            left = []
            if losetup_list() - loops0:
                left.append("loop devices")
            if mounts() - mounts0:
                left.append("mounts")
            if os.listdir(os.path.join(d, "tmp")):
                left.append("TMPDIR: " + ", ".join(os.listdir(os.path.join(d, "tmp"))[:5]))
            if left:
                results.append(("leftovers", "; ".join(left)))
            for outcome, detail in results:
                self.count(case.cat, outcome, case, detail)
            shutil.rmtree(d, ignore_errors=True)
            return
        d = tempfile.mkdtemp(dir=self.work, prefix=re.sub(r"\W+", "_", case.name)[:40] + "-")
        tmp = os.path.join(d, "tmp")
        os.mkdir(tmp)
        write_files(d, case.files)
        if case.user is not None:
            os.chmod(d, 0o777)
            os.chmod(tmp, 0o777)
            os.chmod(self.work, 0o755)
        env = dict(os.environ, TMPDIR=tmp, NO_COLOR="1")
        env.pop("STORTEST_DEVICE", None)
        kept = {}
        for k in case.keep:
            with open(os.path.join(d, k), "rb") as f:
                kept[k] = f.read()
        before_tree = snapshot_tree(d)
        loops0, mounts0 = losetup_list(), mounts()
        argv = [a.replace("@DIR@", d) for a in case.argv]
        r = run([self.bin] + argv, d, env, case.timeout, case.stdin, case.signal_after, case.sig, case.user)
        outcome, detail = self.judge(case, r, d, env)
        # What the case left behind.
        if outcome not in ("panic", "hang"):
            for k, v in kept.items():
                p = os.path.join(d, k)
                if not os.path.exists(p) or open(p, "rb").read() != v:
                    outcome, detail = "data lost", k + " changed or gone"
            left = []
            if os.listdir(tmp):
                left.append("TMPDIR: " + ", ".join(sorted(os.listdir(tmp))[:5]))
            after = snapshot_tree(d)
            new = [p for p in after if p not in before_tree and not p.startswith("tmp") and not p.startswith("out")]
            if new and outcome == "clear error":
                left.append("files: " + ", ".join(sorted(new)[:5]))
            if losetup_list() - loops0:
                left.append("loop devices: " + ", ".join(losetup_list() - loops0))
            if mounts() - mounts0:
                left.append("mounts")
            if left and outcome in ("ok", "clear error"):
                outcome, detail = "leftovers", "; ".join(left)
        self.count(case.cat, outcome, case, detail, r)
        shutil.rmtree(d, ignore_errors=True)

    def judge(self, case, r, d, env):
        if r.hung:
            if case.expect == "fio" and self.fio_verdict(case, d, env) == "hang":
                # fio takes as long (say, laying out a file of 1 TiB
                # before a read at offset=1t): the same, not a hang.
                self.fio_same_slow.append(case.name)
                return "ok", "as slow as fio"
            return "hang", "still running after %ds" % case.timeout
        if PANIC.search(r.err) or PANIC.search(r.out):
            return "panic", r.err.strip().splitlines()[0] if r.err.strip() else "panic"
        if case.check:
            v = case.check(r, d)
            if v:
                return v
        expect = case.expect
        if expect == "fio":
            fv = self.fio_verdict(case, d, env)
            if fv is None:
                expect = "any"
            elif fv == "hang":
                # fio does not finish either: a clear refusal is fine,
                # and so is a run.
                return ("ok" if r.rc == 0 else "clear error"), "fio does not finish: " + first(r.err)
            elif fv != 0:
                expect = "error"
            else:
                # fio runs it: stortest runs it too or refuses by name.
                if r.rc == 0:
                    return "ok", ""
                if not r.err.strip():
                    return "silent wrong", "fio runs it, stortest exits %d saying nothing" % r.rc
                # Refused where fio runs: clear, but counted apart (fio
                # compatibility, not safety).
                self.fio_differs.append("%s: %s" % (case.name, first(r.err)))
                return "clear error", "fio runs it; refused: " + first(r.err)
        if expect == "ok":
            if r.rc == 0:
                return "ok", ""
            return "silent wrong", "exit %d: %s" % (r.rc, first(r.err))
        if expect == "error":
            if r.rc == 0:
                return "silent wrong", "exit 0" + (": " + first(r.err) if r.err.strip() else ", nothing said")
            if not r.err.strip():
                return "silent wrong", "exit %d with nothing on stderr" % r.rc
            if case.mention and case.mention not in r.err:
                return "silent wrong", "error does not name %s: %s" % (case.mention, first(r.err))
            return "clear error", first(r.err)
        return ("ok" if r.rc == 0 else "clear error"), first(r.err)

    def count(self, cat, outcome, case, detail, r=None):
        row = self.rows.setdefault(cat, {o: 0 for o in ["tried", "skipped"] + OUTCOMES})
        if outcome is None:
            row["skipped"] += 1
            return
        row["tried"] += 1
        row[outcome] += 1
        bad = outcome not in ("ok", "clear error")
        if bad or self.verbose:
            print("%-12s %-40s %s: %s" % (cat, case.name[:40], outcome, detail), flush=True)
            if bad and r is not None and self.verbose:
                print("    argv:", case.argv, "\n    rc:", r.rc, "%.1fs" % r.secs, "\n    stderr:", r.err[-800:])

    def table(self):
        cols = ["tried", "clear error", "ok", "panic", "hang", "silent wrong", "data lost", "leftovers", "skipped"]
        print("\n| category | " + " | ".join(cols) + " |")
        print("|---|" + "---|" * len(cols))
        tot = {c: 0 for c in cols}
        for cat, row in self.rows.items():
            print("| %s | %s |" % (cat, " | ".join(str(row[c]) for c in cols)))
            for c in cols:
                tot[c] += row[c]
        print("| all | %s |" % " | ".join(str(tot[c]) for c in cols))
        for n in self.notes:
            print("note:", n)
        if self.fio_same_slow:
            print("\nas slow as fio 3.33 (neither ends in its time limit): " + ", ".join(self.fio_same_slow))
        if self.fio_differs:
            print("\nrefused (clearly) where fio 3.33 runs the same input: %d" % len(self.fio_differs))
            for n in self.fio_differs:
                print("  " + n)
        return sum(tot[c] for c in ["panic", "hang", "silent wrong", "data lost", "leftovers"])


def write_files(d, files):
    """files: name -> str or bytes, or None for a directory."""
    for n, v in files.items():
        p = os.path.join(d, n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if v is None:
            os.mkdir(p)
            continue
        with open(p, "wb") as f:
            f.write(v.encode() if isinstance(v, str) else v)


def first(s):
    s = s.strip()
    return s.splitlines()[0][:160] if s else ""


# ---- the cases -------------------------------------------------------------

BASE_JOB = {"rw": "randread", "bs": "4k", "size": "256k", "filename": "data", "ioengine": "psync"}

BAD_VALUES = {
    "bs": ["", "0", "-1", "abc", "4kk", "99999999999999999999", "4k-", "4k:", "1-0", "${UNSET_VAR_X}", "4k,", "3", "1g1"],
    "iodepth": ["", "0", "-1", "abc", "1e9", "99999999999"],
    "rw": ["", "readd", "randrw:abc", "read:-1", "write:4k:8k"],
    "size": ["", "0", "-1", "abc", "1000%", "0%", "${UNSET_VAR_X}", "1e30"],
    "runtime": ["-1", "abc", "1x", "99999999999999999999999"],
    "rwmixread": ["101", "-1", "abc"],
    "numjobs": ["0", "-1", "abc", "5000"],
    "ioengine": ["nosuch", "psync:x", ""],
    "filename": ["", "nosuchdir/sub/f", "adir", "a:b:"],
    "offset": ["-1", "abc", "64m", "200%"],
    "bssplit": ["4k/101", "4k/50:8k/60", "x", "4k/", "/50"],
    "verify": ["bogus", ""],
    "rate": ["-1", "abc", "1k,abc"],
    "rate_iops": ["-1", "abc"],
    "thinktime": ["-1", "abc"],
    "random_distribution": ["zipf:0", "zipf:-1", "pareto:2", "bogus", "normal:abc"],
    "blockalign": ["0", "abc", "3"],
    "nrfiles": ["0", "-1", "abc"],
    "loops": ["-1", "abc"],
    "percentile_list": ["abc", "101", "50:abc", ""],
    "write_hist_log": [""],
    "log_hist_msec": ["-1", "abc"],
    "steadystate": ["bogus", "iops:abc", "iops_slope:"],
    "ss_dur": ["-1", "abc"],
    "cpumask": ["abc"],
    "zonesize": ["abc", "-1"],
    "buffer_pattern": ["0xZZ", "'unterminated"],
    "include": ["missing.fio"],
}


# Inputs fio would spend minutes or gigabytes on (it forks a process per
# job and allocates an io_u per unit of depth): no fio oracle for these.
# A clear refusal or a run is right; fio refuses more than 4096 jobs.
NO_ORACLE = {("iodepth", "1e9"): "any", ("iodepth", "99999999999"): "any", ("numjobs", "5000"): "error"}


def jobfile(opts, section="j", glob=None):
    s = ""
    if glob is not None:
        s += "[global]\n" + "".join("%s=%s\n" % kv for kv in glob.items())
    s += "[%s]\n" % section + "".join(("%s=%s\n" % kv) if kv[1] is not None else kv[0] + "\n" for kv in opts.items())
    return s


def job_cases():
    cases = []
    data = b"\0" * (256 << 10)
    for opt, vals in BAD_VALUES.items():
        for v in vals:
            o = dict(BASE_JOB)
            if opt == "include":
                text = jobfile(o) + "include %s\n" % v
            else:
                o[opt] = v
                text = jobfile(o)
            files = {"j.fio": text, "data": data, "adir": None}
            expect = NO_ORACLE.get((opt, v), "fio")
            cases.append(Case("job files", "%s=%s" % (opt, v), ["run", "--output-format=json", "j.fio"],
                              expect=expect, files=files, fio_argv=["--output-format=json", "j.fio"]))
            if opt != "include":
                argv = ["--name=j"] + ["--%s=%s" % kv for kv in o.items()]
                cases.append(Case("fio flags", "--%s=%s" % (opt, v), ["run", "--output-format=json"] + argv,
                                  expect=expect, files={"data": data, "adir": None}, fio_argv=["--output-format=json"] + argv))
    # Malformed structure.
    structural = {
        "empty": "",
        "only global": "[global]\nrw=read\n",
        "no section": "rw=read\nbs=4k\n",
        "unterminated section": "[j\nrw=read\n",
        "binary": "\x00\x01\x02[j]\x00\n",
        "unknown option": jobfile(dict(BASE_JOB, bogus_option="1")),
        "duplicate names": jobfile(BASE_JOB) + jobfile(BASE_JOB),
        "long line": "[j]\n" + "rw=" + "r" * 100000 + "\n",
        "include cycle": jobfile(BASE_JOB) + "include j.fio\n",
        "stonewall only": "[j]\nstonewall\n",

        "crlf": jobfile(BASE_JOB).replace("\n", "\r\n"),
        "comment only": "; nothing\n# nothing\n",
        "env unset": "[j]\nrw=randread\nbs=${NO_SUCH_VAR_Y}\nsize=256k\nfilename=data\n",
    }
    for name, text in structural.items():
        cases.append(Case("job files", name, ["run", "--output-format=json", "j.fio"], expect="fio",
                          files={"j.fio": text, "data": data}, fio_argv=["--output-format=json", "j.fio"], timeout=90))
    for name, text in (("5000 sections", "".join(jobfile(BASE_JOB, "j%d" % i) for i in range(5000))),
                       ("numjobs 5000", jobfile(dict(BASE_JOB, numjobs="5000")))):
        cases.append(Case("job files", name, ["run", "--output-format=json", "j.fio"], expect="error",
                          files={"j.fio": text, "data": data}, timeout=120))
    # fio 3.33 refuses a choice option's value with a space before it
    # ("rw = randread": "failed parsing rw = randread") but takes numbers
    # and names so; stortest reads "key = value" alike for every option,
    # on purpose: no one's working job file depends on the refusal.
    cases.append(Case("job files", "value with spaces", ["run", "--output-format=json", "j.fio"], expect="ok",
                      files={"j.fio": "[j]\nrw = randread\nbs = 4k\nsize = 256k\nfilename = data\n", "data": data}))
    cases.append(Case("job files", "missing file", ["run", "nosuch.fio"], mention="nosuch.fio"))
    cases.append(Case("job files", "directory as job file", ["run", "adir"], files={"adir": None}, mention="adir"))
    # Flags of stortest's own.
    own = [
        ["run", "--output-format=xml", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--output=/nonexistent/dir/out.json", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--max-jobs=abc", "j.fio"],
        ["run", "--max-jobs=-1", "j.fio"],
        ["run", "--faults=bogus", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--faults=err_rate=2", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--faults=stall=-1s", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--progress=maybe", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--scratch-size=abc"],
        ["run", "--report=/nonexistent/dir/r.html", "--name=j", "--filename=data", "--size=64k"],
        ["run", "--no-such-flag"],
        ["baseline", "diff"],
        ["baseline", "diff", "onlyone"],
        ["baseline", "show"],
        ["hist", "merge"],
        ["hist", "merge", "--time-quantum=-1", "x.log"],
        ["history", "changes"],
        ["history", "add"],
        ["steady", "check", "--criterion", "bogus"],
        ["nosuchcommand"],
        ["fio", "pctiles", "nosuch.json"],
    ]
    for argv in own:
        cases.append(Case("flags", " ".join(argv)[:60], argv, files={"j.fio": jobfile(BASE_JOB), "data": data}))
    return cases


def baseline_cases(good):
    """good: the bytes of a valid baseline."""
    cases = []
    doc = json.loads(good)
    muts = {}
    for cut in (0, 1, 10, 100, len(good) // 3, len(good) // 2, len(good) - 2):
        muts["truncated at %d" % cut] = good[:cut]
    muts["binary"] = bytes(range(256)) * 4
    muts["empty object"] = b"{}"
    muts["array"] = b"[]"
    muts["null"] = b"null"
    for v in (0, 99, -1, "3", None):
        d = json.loads(good)
        d["schema"] = v
        muts["schema %r" % (v,)] = json.dumps(d).encode()
    for key in list(doc.keys()):
        d = json.loads(good)
        del d[key]
        muts["without %s" % key] = json.dumps(d).encode()

    def numeric_paths(o, path=()):
        if isinstance(o, dict):
            for k, v in o.items():
                yield from numeric_paths(v, path + (k,))
        elif isinstance(o, list):
            for i, v in enumerate(o[:3]):
                yield from numeric_paths(v, path + (i,))
        elif isinstance(o, (int, float)) and not isinstance(o, bool):
            yield path

    paths = list(numeric_paths(doc))
    step = max(1, len(paths) // 25)
    for p in paths[::step]:
        for bad in (-1, 1e308, "x", None):
            d = json.loads(good)
            o = d
            for k in p[:-1]:
                o = o[k]
            o[p[-1]] = bad
            muts["%s=%r" % (".".join(map(str, p)), bad)] = json.dumps(d).encode()
    for name, content in muts.items():
        files = {"good.json": good, "bad.json": content}
        cases.append(Case("baselines", "show " + name, ["baseline", "show", "bad.json"], expect="any", files=files,
                          check=baseline_check(1), keep=["good.json", "bad.json"]))
        cases.append(Case("baselines", "diff " + name, ["baseline", "diff", "good.json", "bad.json"], expect="any",
                          files=files, check=baseline_check(2), keep=["good.json", "bad.json"]))
    d = json.loads(good)
    d["dirs"]["read"]["iops"] = 0
    zero = json.dumps(d).encode()
    for cmd in (["baseline", "show", "bad.json"], ["baseline", "diff", "good.json", "bad.json"], ["baseline", "diff", "bad.json", "good.json"]):
        cases.append(Case("baselines", "iops 0 with I/Os: " + cmd[1], cmd, files={"good.json": good, "bad.json": zero},
                          mention="bad.json", keep=["good.json", "bad.json"]))
    cases.append(Case("baselines", "diff of directory", ["baseline", "diff", "good.json", "adir"],
                      files={"good.json": good, "adir": None}))
    return cases


def baseline_check(errcode):
    """A damaged baseline is refused naming the file (exit status errcode
    or above), or read whole: a figure like Inf or NaN in the output is
    wrong either way."""
    def check(r, d):
        if r.rc >= errcode:
            if "bad.json" not in r.err:
                return "silent wrong", "error does not name the file: " + first(r.err)
            return "clear error", first(r.err)
        if re.search(r"\bN[aA]N\b|[+-]?Inf\b|\+\+", r.out):
            return "silent wrong", "prints Inf/NaN: " + next(l for l in r.out.splitlines() if re.search(r"NaN|Inf|\+\+", l))[:120]
        return "ok", ""
    return check


def histlog_cases(good):
    lines = good.splitlines(keepends=True)
    muts = {
        "empty": "",
        "truncated line": "".join(lines[:2]) + lines[2][:30],
        "extra column": "".join(lines[:2]) + lines[2].rstrip("\n") + ", 5\n",
        "missing column": "".join(lines[:2]) + ", ".join(lines[2].split(", ")[:-3]) + "\n",
        "negative count": "".join(lines[:2]) + lines[2].replace(", 0", ", -5", 1),
        "nan": "".join(lines[:2]) + lines[2].replace(", 0", ", nan", 1),
        "text": "".join(lines[:2]) + "hello world\n",
        "time backwards": lines[2] + lines[0],
        "huge count": "".join(lines[:2]) + lines[2].replace(", 0", ", 99999999999999999999999", 1),
        "binary": "\x00\x01\x02\n",
        "bad direction": "".join(lines[:2]) + lines[2].replace(", 1, ", ", 7, ", 1),
        "header only": "time, dir, bs\n",
    }
    cases = []
    for name, text in muts.items():
        files = {"h_clat_hist.1.log": text}
        cases.append(Case("hist logs", name, ["hist", "merge", "h_clat_hist.1.log"], expect="any", files=files,
                          check=hist_check))
        cases.append(Case("hist logs", name + " (dir)", ["hist", "merge", "--summary", "."], expect="any",
                          files=files, check=hist_check))
    return cases


def hist_check(r, d):
    if r.rc != 0:
        if "h_clat_hist.1.log" not in r.err and "." not in r.err:
            return "silent wrong", "error does not name the log: " + first(r.err)
        return "clear error", first(r.err)
    if re.search(r"NaN|Inf", r.out):
        return "silent wrong", "prints NaN/Inf"
    return "ok", ""


def fault_cases():
    data = b"\1" * (16 << 20)
    cases = []
    engines = ["psync", "sync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap"]
    for e in engines:
        base = ["run", "--name=x", "--rw=randread", "--bs=4k", "--ioengine=" + e, "--filename=data", "--size=16m"]
        cases.append(Case("faults", e + " errors", ["run", "--faults=err_rate=0.01", "--continue_on_error=all"] + base[1:] + ["--runtime=1", "--time_based"],
                          expect="any", files={"data": data}, timeout=30))
        cases.append(Case("faults", e + " stall 1h", ["run", "--faults=stall_at=0+64m,stall=1h"] + base[1:] + ["--runtime=2", "--time_based"],
                          expect="any", files={"data": data}, timeout=40, check=stall_check(40)))
        cases.append(Case("faults", e + " stall 20s, runtime 1", ["run", "--faults=stall_at=0+64m,stall=20s"] + base[1:] + ["--runtime=1", "--time_based"],
                          expect="any", files={"data": data}, timeout=40, check=stall_check(15)))
        cases.append(Case("faults", e + " short", ["run", "--faults=short_rate=0.5"] + base[1:] + ["--runtime=1", "--time_based"],
                          expect="any", files={"data": data}, timeout=30))
    return cases


def stall_check(limit):
    def check(r, d):
        if r.secs > limit:
            return "hang", "ran %.1fs through a stall" % r.secs
        if r.rc == 0 and "outstanding" not in (r.out + r.err):
            return "silent wrong", "a stalled run exits 0 and names no outstanding I/O"
        return "clear error", first(r.err) or first(r.out)
    return check


def signal_cases():
    data = b"\1" * (16 << 20)
    cases = []
    base = ["run", "--name=x", "--rw=randread", "--bs=4k", "--ioengine=psync", "--filename=data", "--size=16m",
            "--runtime=30", "--time_based"]
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        for extra, label in (([], "running"), (["--faults=stall_at=0+64m,stall=1h"], "stalled"),
                             (["--output-format=json"], "json")):
            cases.append(Case("signals", "%s %s" % (sig.name, label), base[:1] + extra + base[1:], expect="any",
                              files={"data": data}, timeout=30, signal_after=1.5, sig=sig,
                              check=signal_check(code)))
        cases.append(Case("signals", "%s twice" % sig.name, base, expect="any", files={"data": data}, timeout=30,
                          signal_after=1.5, sig=[sig, sig], check=signal_check(code)))
    return cases


def signal_check(code):
    def check(r, d):
        if r.secs > 15:
            return "hang", "%.1fs after the signal" % r.secs
        if r.rc != code:
            return "silent wrong", "exit %d, want %d" % (r.rc, code)
        # Partial results: figures, or (when the device never answered)
        # the I/Os still outstanding, in the job's block.
        if "iops" not in r.out.lower() and "outstanding" not in r.out:
            return "silent wrong", "no partial result printed"
        return "clear error", "exit %d with partial results" % r.rc
    return check


def history_cases(good):
    cases = []
    cases.append(Case("history", "add empty dir", ["history", "add", "h", "empty"], files={"empty": None}))
    cases.append(Case("history", "add dir named x.json", ["history", "add", "h", "x.json"], files={"x.json": None}))
    cases.append(Case("history", "add missing", ["history", "add", "h", "nosuch.json"], mention="nosuch.json"))
    cases.append(Case("history", "add garbage", ["history", "add", "h", "g.json"], files={"g.json": "garbage"}, mention="g.json"))
    cases.append(Case("history", "changes of empty dir", ["history", "changes", "empty"], expect="any", files={"empty": None}))
    cases.append(Case("history", "changes of missing dir", ["history", "changes", "nosuch"]))

    def identical(n):
        def check(r, d):
            return None
        return check
    return cases


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None)
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--only", default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args()


def main():
    args = parse_args()
    if args.bin is None:
        args.bin = os.path.join(tempfile.mkdtemp(), "stortest")
        subprocess.run(["go", "build", "-o", args.bin, "./cmd/stortest"], cwd=ROOT, check=True)
    t = Trial(args)
    good = open(os.path.join(ROOT, "baselines/testdata/schema3.json"), "rb").read()
    hist = open(os.path.join(ROOT, "latency/histlog/testdata/fio/h_clat_hist.1.log")).read()
    cases = job_cases() + baseline_cases(good) + histlog_cases(hist) + history_cases(good) + fault_cases() + signal_cases()
    cases += extra_cases(t, good)
    for c in cases:
        if args.only and args.only != c.cat:
            continue
        t.one(c)
    bad = t.table()
    shutil.rmtree(t.work, ignore_errors=True)
    sys.exit(1 if bad else 0)


# ---- scenarios with their own set-up (root) -------------------------------

class Scenario(Case):
    """A case whose body is a function of the trial: body(trial, dir, env)
    returns a list of (outcome, detail), one per thing tried."""

    def __init__(self, cat, name, body, need_root=True):
        super().__init__(cat, name, [], need_root=need_root)
        self.body = body


def sh(*argv, **kw):
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


class Loop:
    """A loop device over a file in d; detached (and unmounted) on exit."""

    def __init__(self, d, size=64 << 20, name="disk.img"):
        self.img = os.path.join(d, name)
        with open(self.img, "wb") as f:
            f.truncate(size)
        self.dev = sh("losetup", "-f", "--show", "-P", self.img).stdout.strip()
        self.mnt = None
        self.swap = False

    def __enter__(self):
        return self

    def mount(self, d, part=""):
        self.mnt = os.path.join(d, "mnt")
        os.makedirs(self.mnt, exist_ok=True)
        sh("mkfs.ext4", "-q", "-F", self.dev + part)
        r = sh("mount", self.dev + part, self.mnt)
        if r.returncode:
            raise RuntimeError("mount: " + r.stderr)
        with open(os.path.join(self.mnt, "precious"), "w") as f:
            f.write("keep me\n" * 1000)
        sh("sync")

    def __exit__(self, *a):
        if self.mnt:
            sh("umount", self.mnt)
        if self.swap:
            sh("swapoff", self.dev)
        sh("losetup", "-d", self.dev)


def head(path, n=1 << 20):
    with open(path, "rb") as f:
        return f.read(n)


def mounted_writes(t, d, env):
    out = []
    jobs = {
        "write": ["--rw=write"], "randwrite": ["--rw=randwrite"], "randrw": ["--rw=randrw"],
        "trim": ["--rw=trim"], "write verify": ["--rw=write", "--verify=md5"],
        "write libaio": ["--rw=write", "--ioengine=libaio"],
    }
    for name, extra in jobs.items():
        with Loop(d) as lo:
            lo.mount(d)
            before = head(lo.dev)
            r = run([t.bin, "run", "--name=w", "--bs=4k", "--ioengine=psync", "--direct=1", "--filename=" + lo.dev,
                     "--size=1m", "--runtime=1"] + extra, d, env, 60)
            same = head(lo.dev) == before
            if r.rc == 0 or not same:
                out.append(("data lost" if not same else "silent wrong", "%s on a mounted device: exit %d" % (name, r.rc)))
            elif "mount" not in r.err:
                out.append(("silent wrong", "%s refused without saying mounted: %s" % (name, first(r.err))))
            else:
                out.append(("clear error", first(r.err)))
    # Reads stay allowed.
    with Loop(d) as lo:
        lo.mount(d)
        r = run([t.bin, "run", "--name=r", "--rw=read", "--bs=4k", "--ioengine=psync", "--filename=" + lo.dev,
                 "--size=1m"], d, env, 60)
        out.append(("ok", "") if r.rc == 0 else ("silent wrong", "a read of a mounted device refused: " + first(r.err)))
    # A mounted partition of the device.
    if shutil.which("sfdisk"):
        with Loop(d) as lo:
            sh("sfdisk", "-q", lo.dev, input="label: dos\n,16M\n,\n")
            sh("partprobe", lo.dev) if shutil.which("partprobe") else None
            sh("losetup", "-c", lo.dev)
            time.sleep(0.5)
            if os.path.exists(lo.dev + "p1"):
                lo.mount(d, "p1")
                before = head(lo.dev + "p1")
                r = run([t.bin, "run", "--name=w", "--rw=write", "--bs=4k", "--ioengine=psync", "--filename=" + lo.dev,
                         "--offset=0", "--size=17m", "--runtime=1"], d, env, 60)
                ok = head(lo.dev + "p1") == before
                out.append(("clear error", first(r.err)) if r.rc and ok else
                           ("data lost" if not ok else "silent wrong", "whole disk with a mounted partition: exit %d" % r.rc))
    # Swap.
    with Loop(d) as lo:
        if sh("mkswap", lo.dev).returncode == 0 and sh("swapon", lo.dev).returncode == 0:
            lo.swap = True
            r = run([t.bin, "run", "--name=w", "--rw=write", "--bs=4k", "--ioengine=psync", "--filename=" + lo.dev,
                     "--size=1m"], d, env, 60)
            out.append(("clear error", first(r.err)) if r.rc and "swap" in r.err else
                       ("silent wrong", "a swap device written: exit %d %s" % (r.rc, first(r.err))))
    return out


def full_disk(t, d, env):
    """A tiny tmpfs filled up: nothing kept before is lost, nothing partial is left."""
    out = []
    fio_json = os.path.join(ROOT, "testdata/fio/psync-randrw.json")
    mnt = os.path.join(d, "tiny")
    os.makedirs(mnt)
    if sh("mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", mnt).returncode:
        return [("clear error", "no tmpfs")]
    try:
        # A history with room, then baselines until the disk is full.
        h = os.path.join(mnt, "hist")
        src = os.path.join(d, "src")
        run([t.bin, "baseline", "import-fio", "--out", src, fio_json], d, env, 30)
        for i in range(2):
            r = run([t.bin, "history", "add", h, src], d, env, 30)
            if r.rc:
                out.append(("silent wrong", "history add with room: " + first(r.err)))
        kept = {}
        for i in range(40):
            o = os.path.join(mnt, "b%d" % i)
            r = run([t.bin, "baseline", "import-fio", "--out", o, fio_json], d, env, 30)
            if r.rc == 0:
                for base, _, files in os.walk(o):
                    for f in files:
                        kept[os.path.join(base, f)] = head(os.path.join(base, f), 1 << 30)
                continue
            if "no space" not in r.err.lower():
                out.append(("silent wrong", "import-fio on a full disk: " + first(r.err)))
            else:
                out.append(("clear error", first(r.err)))
            # What it wrote whole or not at all.
            for base, _, files in os.walk(o):
                for f in files:
                    p = os.path.join(base, f)
                    if run([t.bin, "baseline", "show", p], d, env, 30).rc:
                        out.append(("silent wrong", "a partial baseline left: " + p))
        for p, v in kept.items():
            if not os.path.exists(p) or head(p, 1 << 30) != v:
                out.append(("data lost", p))
        # History adds into the full disk.
        for i in range(5):
            r = run([t.bin, "history", "add", h, src], d, env, 30)
            if r.rc == 0:
                continue
            out.append(("clear error", first(r.err)) if "no space" in r.err.lower() else
                       ("silent wrong", "history add on a full disk: " + first(r.err)))
        r = run([t.bin, "history", "changes", "--min-runs=2", h], d, env, 30)
        if r.rc == 2:
            out.append(("data lost", "history unreadable after a full disk: " + first(r.err)))
        # Run outputs into the full disk.
        for flag in ("--output", "--report"):
            target = os.path.join(mnt, "out" + flag.strip("-"))
            r = run([t.bin, "run", "--name=j", "--rw=read", "--bs=4k", "--size=1m", "--filename=" + os.path.join(d, "data1"),
                     "--output-format=json+", flag + "=" + target], d, env, 60)
            if r.rc == 0:
                out.append(("silent wrong", "%s into a full disk exits 0" % flag))
            elif target not in r.err:
                out.append(("silent wrong", "%s: the error does not name %s: %s" % (flag, target, first(r.err))))
            elif os.path.exists(target) and os.path.getsize(target) > 0:
                try:
                    if flag == "--output":
                        json.load(open(target))
                    out.append(("clear error", first(r.err)))
                except ValueError:
                    out.append(("silent wrong", "a partial %s left" % target))
            else:
                out.append(("clear error", first(r.err)))
    finally:
        sh("umount", mnt)
    return out


def history_source(t, d, env):
    """Imports a fio output as a baseline directory to add to a history
    in d; returns it and the history's directory."""
    fio_json = os.path.join(ROOT, "testdata/fio/psync-randrw.json")
    src = os.path.join(d, "src")
    run([t.bin, "baseline", "import-fio", "--out", src, fio_json], d, env, 30)
    return src, os.path.join(d, "hist")


def parallel_history(t, d, env):
    src, h = history_source(t, d, env)
    procs = [subprocess.Popen("for i in $(seq 10); do %s history add %s %s || exit 1; done" % (t.bin, h, src),
                              shell=True, cwd=d, env=env, stderr=subprocess.PIPE) for _ in range(8)]
    rcs = [p.wait(timeout=300) for p in procs]
    n = sum(len(fs) for _, _, fs in os.walk(h))
    r = run([t.bin, "history", "changes", "--format=json", h], d, env, 120)
    res = [("ok", "") if all(rc == 0 for rc in rcs) else ("silent wrong", "a parallel history add failed")]
    res.append(("ok", "") if r.rc in (0, 1) else ("data lost", "history unreadable: " + first(r.err)))
    res.append(("ok", "%d files" % n) if n >= 80 else ("data lost", "%d of 80 runs kept" % n))
    return res


def identical_history(t, d, env):
    src, h = history_source(t, d, env)
    out = []
    for i in range(60):
        run([t.bin, "history", "add", h, src], d, env, 30)
    r = run([t.bin, "history", "changes", "--format=json", h], d, env, 120)
    try:
        doc = json.loads(r.out)
    except ValueError:
        return [("silent wrong", "history changes --format=json: " + first(r.err))]
    found = json.dumps(doc).count('"p"') if doc else 0
    text = run([t.bin, "history", "changes", h], d, env, 120).out
    if re.search(r"p=\d", text) or "change" in text.lower() and "+0.0%" in text:
        out.append(("silent wrong", "change points in 60 identical runs: " + next((l for l in text.splitlines() if "p=" in l), "")[:120]))
    else:
        out.append(("ok", ""))
    return out


def unprivileged(t, d, env):
    out = []
    os.chmod(t.bin, 0o755)
    with Loop(d, 16 << 20) as lo:
        for rw in ("read", "write"):
            r = run([t.bin, "run", "--name=u", "--rw=" + rw, "--bs=4k", "--size=1m", "--filename=" + lo.dev], d, env, 60,
                    user="nobody")
            if r.rc == 0:
                out.append(("silent wrong", "nobody could %s %s" % (rw, lo.dev)))
            elif "permission" not in r.err.lower() and "root" not in r.err.lower():
                out.append(("silent wrong", "unclear: " + first(r.err)))
            else:
                out.append(("clear error", first(r.err)))
    r = run([t.bin, "run", "--name=u", "--rw=read", "--bs=4k", "--size=1m", "--filename=" + os.path.join(d, "tmp", "f")], d,
            env, 60, user="nobody")
    out.append(("ok", "") if r.rc == 0 else ("silent wrong", "nobody cannot run on a file in TMPDIR: " + first(r.err)))
    if os.path.exists(os.path.join(d, "tmp", "f")):
        os.remove(os.path.join(d, "tmp", "f"))
    return out


UPDATE_TEST = """package trialupd

import (
	"testing"
	"time"

	"stortest.dev"
	"stortest.dev/workload"
)

func TestMain(m *testing.M) { stortest.Main(m) }

func TestUpdate(t *testing.T) {
	dev := stortest.Target(t)
	res := stortest.Run(t, dev, workload.Job{Name: "rr", Engine: "psync", RW: workload.RandRead,
		BlockSize: 4 << 10, Size: 8 << 20, Runtime: 1500 * time.Millisecond, TimeBased: true})
	stortest.CheckBaseline(t, res)
}
"""


def update_binary(t, d):
    """A test binary of a one-job test whose baseline -stortest.update records."""
    if getattr(t, "upd_bin", None):
        return t.upd_bin
    m = os.path.join(t.work, "updmod")
    os.makedirs(m, exist_ok=True)
    gomod = open(os.path.join(ROOT, "go.mod")).read().split("\n")
    with open(os.path.join(m, "go.mod"), "w") as f:
        f.write("module trialupd\n\ngo 1.26\n\nrequire stortest.dev v0.0.0\n\nreplace stortest.dev => %s\n" % ROOT)
    shutil.copy(os.path.join(ROOT, "go.sum"), os.path.join(m, "go.sum"))
    with open(os.path.join(m, "upd_test.go"), "w") as f:
        f.write(UPDATE_TEST)
    r = sh("go", "mod", "tidy", cwd=m)
    r = sh("go", "test", "-c", "-o", os.path.join(t.work, "upd.test"), ".", cwd=m)
    if r.returncode:
        raise RuntimeError("building the update test: " + r.stderr[-500:])
    t.upd_bin = os.path.join(t.work, "upd.test")
    return t.upd_bin


def baseline_ok(t, d, env, path):
    if not os.path.exists(path):
        return True
    return run([t.bin, "baseline", "show", path], d, env, 30).rc == 0


def history_lines_ok(path):
    """Every line of a baseline's history is whole JSON; returns (ok, lines)."""
    if not os.path.exists(path):
        return True, 0
    n = 0
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        return False, n
    for line in data.splitlines():
        n += 1
        try:
            json.loads(line)
        except ValueError:
            return False, n
    return True, n


def killed_updates(t, d, env):
    """SIGKILL at random moments of go test -stortest.update: the baseline
    and its history stay whole."""
    import random
    b = update_binary(t, d)
    bdir = os.path.join(d, "baselines")
    path = os.path.join(bdir, "TestUpdate", "rr.json")
    hist = path[:-5] + ".history.jsonl"
    out = []
    r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120)
    if r.rc or not os.path.exists(path):
        return [("silent wrong", "the first update failed: " + (r.out + r.err)[-300:])]
    rnd = random.Random(1)
    for i in range(12):
        r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120,
                signal_after=rnd.uniform(0.2, 3.0), sig=signal.SIGKILL)
        ok_b = baseline_ok(t, d, env, path)
        ok_h, _ = history_lines_ok(hist)
        if not ok_b:
            out.append(("data lost", "baseline unreadable after SIGKILL %d" % i))
        elif not ok_h:
            out.append(("data lost", "history broken after SIGKILL %d" % i))
        else:
            out.append(("ok", ""))
    # The next run cleans up what the killed ones left (loop devices,
    # scratch files, artifact directories).
    r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120)
    if r.rc:
        out.append(("silent wrong", "the run after the kills failed: " + (r.out + r.err)[-300:]))
    return out


def full_updates(t, d, env):
    """-stortest.update on a full disk: it fails naming the path, and the
    baseline and its history stay as they were."""
    b = update_binary(t, d)
    mnt = os.path.join(d, "tiny")
    os.makedirs(mnt)
    if sh("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).returncode:
        return [("clear error", "no tmpfs")]
    out = []
    try:
        bdir = os.path.join(mnt, "baselines")
        path = os.path.join(bdir, "TestUpdate", "rr.json")
        hist = path[:-5] + ".history.jsonl"
        for i in range(2):
            r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120)
            if r.rc:
                return [("silent wrong", "update with room failed: " + (r.out + r.err)[-300:])]
        # Fill the disk but for a few bytes, in steps, updating between.
        for left in (200000, 50000, 5000, 700, 0):
            filler = os.path.join(mnt, "filler%d" % left)
            st = os.statvfs(mnt)
            free = st.f_bavail * st.f_frsize
            if free > left:
                with open(filler, "wb") as f:
                    try:
                        f.write(b"\0" * (free - left))
                    except OSError:
                        pass
            before_b = head(path, 1 << 30)
            before_h = head(hist, 1 << 30) if os.path.exists(hist) else b""
            r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120)
            now_b = head(path, 1 << 30)
            now_h = head(hist, 1 << 30) if os.path.exists(hist) else b""
            ok_h, _ = history_lines_ok(hist)
            if r.rc == 0:
                if not baseline_ok(t, d, env, path) or not ok_h:
                    out.append(("data lost", "an update that passed left a broken baseline or history (%d bytes free)" % left))
                else:
                    out.append(("ok", ""))
                continue
            if now_b != before_b or now_h != before_h:
                out.append(("data lost", "a failed update changed the baseline or its history (%d bytes free)" % left))
            elif "no space" not in (r.out + r.err).lower():
                out.append(("silent wrong", "a failed update does not say why: " + (r.out + r.err)[-200:]))
            else:
                out.append(("clear error", "update failed on a full disk, files intact"))
        # Room again: the next update succeeds and the history reads whole.
        for f in os.listdir(mnt):
            if f.startswith("filler"):
                os.remove(os.path.join(mnt, f))
        r = run([b, "-test.run=TestUpdate", "-stortest.update", "-stortest.baselines=" + bdir], d, env, 120)
        ok_h, n = history_lines_ok(hist)
        if r.rc or not ok_h:
            out.append(("data lost", "after room returned: exit %d, history whole: %s" % (r.rc, ok_h)))
        else:
            out.append(("ok", "%d history lines" % n))
    finally:
        sh("umount", mnt)
    return out


def extra_cases(t, good):
    return [
        Scenario("mounted devices", "writes to mounted devices", mounted_writes),
        Scenario("full disk", "tiny tmpfs", full_disk),
        Scenario("history", "8 parallel adds", parallel_history, need_root=False),
        Scenario("history", "60 identical runs", identical_history, need_root=False),
        Scenario("unprivileged", "as nobody", unprivileged),
        Scenario("updates", "SIGKILL during -stortest.update", killed_updates),
        Scenario("updates", "full disk during -stortest.update", full_updates),
    ]


if __name__ == "__main__":
    main()
