package perfgate_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/baselines"
	"stortest.dev/engines"
	"stortest.dev/fio"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
	"stortest.dev/regress"
)

// The gate's settings, from the environment (make perf-gate, make
// perf-record).
const (
	envMode    = "STORTEST_PERF_GATE"    // check (compare), append (record a session) or rebuild
	envRounds  = "STORTEST_PERF_ROUNDS"  // alternating rounds per case (12)
	envRuntime = "STORTEST_PERF_RUNTIME" // each run's runtime (500ms)
	envTags    = "STORTEST_PERF_TAGS"    // build tags of the stortest binary measured
	envCases   = "STORTEST_PERF_CASES"   // comma-separated substrings of the cases to run
	envDir     = "STORTEST_PERF_DIR"     // where the baselines and rounds are (testdata)
	envRetries = "STORTEST_PERF_RETRIES" // measurements again of a case not comparable (2)
)

// TestPerfGate measures stortest's CPU per I/O against fio 3.33's for
// each case, in alternating rounds in this process tree, and then
// either compares the session with the baselines under testdata
// (STORTEST_PERF_GATE=check: a regression fails the test) or records it
// (=append: the session is added to the rounds and grows the
// baselines). =rebuild measures nothing: it writes the baselines anew
// from the recorded rounds (after a change of the estimator). See
// doc.go.
func TestPerfGate(t *testing.T) {
	mode := os.Getenv(envMode)
	dir := os.Getenv(envDir)
	if dir == "" {
		dir = "testdata"
	}
	switch mode {
	case "":
		t.Skipf("set %s=check to run the perf gate (make perf-gate), =append to record a session (make perf-record)", envMode)
	case "check", "append":
	case "rebuild":
		for _, c := range Cases {
			ss, err := readSessions(filepath.Join(dir, "rounds", c.Name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) == 0 {
				continue
			}
			if err := writeBaselines(c, dir, ss); err != nil {
				t.Fatal(err)
			}
		}
		return
	default:
		t.Fatalf("%s=%q: want check, append or rebuild", envMode, mode)
	}
	fioBin, err := exec.LookPath("fio")
	if err != nil {
		t.Fatalf("the perf gate needs fio 3.33: %v", err)
	}
	ver, err := exec.Command(fioBin, "--version").Output()
	if err != nil {
		t.Fatalf("fio --version: %v", err)
	}
	fioVersion := strings.TrimSpace(string(ver))
	rounds := 12
	if v := os.Getenv(envRounds); v != "" {
		if rounds, err = strconv.Atoi(v); err != nil || rounds < 3 {
			t.Fatalf("%s=%q: want a count of at least 3", envRounds, v)
		}
	}
	rt := "500ms"
	if v := os.Getenv(envRuntime); v != "" {
		rt = v
	}
	retries := 2
	if v := os.Getenv(envRetries); v != "" {
		if retries, err = strconv.Atoi(v); err != nil || retries < 0 {
			t.Fatalf("%s=%q: want a count", envRetries, v)
		}
	}

	bin := buildStortest(t, os.Getenv(envTags))
	targets := map[string]string{}
	var cases []Case
	for _, c := range Cases {
		if !selected(c.Name) {
			continue
		}
		if c.Target == "loop" && os.Geteuid() != 0 {
			testenv.Unmet(t, testenv.EnvRequireDevice, "%s needs root for its loop device", c.Name)
			continue
		}
		if c.Target != "" && targets["shm"] == "" {
			targets["shm"] = shmFile(t)
		}
		if c.Target == "loop" && targets["loop"] == "" {
			l, err := engines.AttachLoop(targets["shm"], engines.LoopOptions{})
			if err != nil {
				t.Fatalf("attach a loop device over %s: %v", targets["shm"], err)
			}
			t.Cleanup(func() {
				if err := l.Detach(); err != nil {
					t.Errorf("detach %s: %v", l.Path(), err)
				}
			})
			targets["loop"] = l.Path()
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s=%q selects no case", envCases, os.Getenv(envCases))
	}

	var uts unix.Utsname
	_ = unix.Uname(&uts)
	session := Session{Session: baselines.ProcessSession(), Created: time.Now().UTC(),
		Kernel: unix.ByteSliceToString(uts.Release[:]), Fio: fioVersion}
	// Round by round across the cases, each case's two runs in turn
	// order, so that the load of the whole session reaches every case
	// and both tools alike.
	measureCases := func(cases []Case) [][]Round {
		out := make([][]Round, len(cases))
		start := time.Now()
		for i := range rounds {
			for ci, c := range cases {
				args := append([]string{"--name=" + c.Job.Engine, "--time_based", "--runtime=" + rt}, c.Args...)
				if c.Target != "" {
					args = append(args, "--filename="+targets[c.Target])
				}
				var r Round
				runFio := func() { r.Fio = measure(t, c.Name, append([]string{fioBin, "--output-format=json"}, args...)) }
				runStortest := func() {
					r.Stortest = measure(t, c.Name, append([]string{bin, "run", "--progress=off", "--output-format=json"}, args...))
				}
				if i%2 == 0 {
					runFio()
					runStortest()
				} else {
					runStortest()
					runFio()
				}
				out[ci] = append(out[ci], r)
			}
		}
		t.Logf("%d cases, %d rounds of %s each, in %v", len(cases), rounds, rt, time.Since(start).Round(time.Second))
		return out
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "%-34s %10s %10s %9s %9s %7s\n", "case", "fio IOPS", "st IOPS", "fio CPU", "st CPU", "ratio")
	row := func(c Case, rs []Round) {
		fmt.Fprintf(&table, "%-34s %10s %10s %7.0fns %7.0fns %7.3f\n", c.Name,
			baselines.FormatIOPS(medianOf(rs, func(r Round) float64 { return r.Fio.IOPS })),
			baselines.FormatIOPS(medianOf(rs, func(r Round) float64 { return r.Stortest.IOPS })),
			fioCost(rs), stortestCost(rs), estimate(rs))
	}
	const tableHead = "IOPS: median of the rounds; CPU: the job thread's user+system per I/O, mean of the rounds' lowest quarter; ratio: fio's CPU over stortest's"

	measured := measureCases(cases)
	if mode == "append" {
		for ci, c := range cases {
			s := session
			s.Rounds = measured[ci]
			row(c, s.Rounds)
			if err := record(c, dir, s); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s\n%s", tableHead, table.String())
		t.Logf("recorded session %s under %s", session.Session, dir)
		return
	}

	// Check: each case judged against its baselines, and measured
	// again while not comparable (check).
	base := make([]map[Figure]*baselines.Baseline, len(cases))
	ranges := make([]Range, len(cases))
	for ci, c := range cases {
		base[ci] = map[Figure]*baselines.Baseline{}
		for _, f := range c.figures() {
			b, err := baselines.Load(filepath.Join(dir, c.File(f)))
			if err != nil {
				t.Fatalf("%v (record sessions with make perf-record)", err)
			}
			base[ci][f] = b
		}
		recorded, err := readSessions(filepath.Join(dir, "rounds", c.Name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		ranges[ci] = fioRange(recorded)
	}
	judged, err := check(cases, base, ranges, session, measured, retries, func(cs []Case) [][]Round {
		t.Logf("measuring again: %d cases not comparable, or regressed on the ratio alone", len(cs))
		return measureCases(cs)
	}, func(c Case, rs []Round, j Judgement) {
		row(c, rs)
		t.Log(j.Note())
		for _, rep := range j.Reports {
			for _, f := range rep.Regressions() {
				t.Logf("%s: this session: %s", rep.Name, f.Reason)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", tableHead, table.String())
	var reports []regress.Report
	var notes []string
	for _, j := range judged {
		reports = append(reports, j.Reports...)
		if !j.Comparable() {
			notes = append(notes, j.Note())
		}
	}
	var text bytes.Buffer
	if err := regress.WriteText(&text, reports...); err != nil {
		t.Fatal(err)
	}
	t.Logf("against the baselines in %s:\n%s", dir, text.String())
	for _, n := range notes {
		t.Log(n)
	}
	for _, rep := range reports {
		for _, f := range rep.Regressions() {
			t.Errorf("%s: %s", rep.Name, f.Reason)
		}
	}
}

// check judges each case's session (first, as measured) against its
// baselines (base) and the range of fio's own CPU per I/O over its
// recorded sessions (ranges), and measures again (measure, all such
// cases together), up to retries times, the cases whose judgement is
// not yet settled: a case judging stortest's own figure (Case.Own)
// while none of its sessions is comparable, and a case whose one
// comparable session regressed. A regression must show in two
// sessions: one session's cost can be the host's alone (psync's
// stortest CPU per I/O was once 40% above every other session of 23,
// fio's as usual; one null session of 7 read an unchanged tree 9%
// slower on the ratio), and a real slowdown shows in the next session
// too. The judgement of a case is that of its second comparable
// session when the first regressed, else of its first comparable one,
// else (none comparable) of the one nearest the range (closest). seen
// is told of every session judged.
func check(cases []Case, base []map[Figure]*baselines.Baseline, ranges []Range, session Session, first [][]Round,
	retries int, measure func([]Case) [][]Round, seen func(Case, []Round, Judgement)) ([]Judgement, error) {
	tries := make([][]Judgement, len(cases))
	judge := func(ci int, rs []Round) error {
		s := session
		s.Rounds = rs
		j, err := cases[ci].Judge(base[ci], ranges[ci], s)
		if err != nil {
			return err
		}
		tries[ci] = append(tries[ci], j)
		if seen != nil {
			seen(cases[ci], rs, j)
		}
		return nil
	}
	for ci, rs := range first {
		if err := judge(ci, rs); err != nil {
			return nil, err
		}
	}
	comparable := func(ci int) []Judgement {
		var out []Judgement
		for _, j := range tries[ci] {
			if j.Comparable() {
				out = append(out, j)
			}
		}
		return out
	}
	unsettled := func(ci int) bool {
		js := comparable(ci)
		return len(js) == 0 || len(js) == 1 && js[0].Regression()
	}
	for range retries {
		var again []int
		var cs []Case
		for ci := range cases {
			if unsettled(ci) {
				again, cs = append(again, ci), append(cs, cases[ci])
			}
		}
		if len(again) == 0 {
			break
		}
		for i, rs := range measure(cs) {
			if err := judge(again[i], rs); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Judgement, len(cases))
	for ci := range cases {
		switch js := comparable(ci); {
		case len(js) == 0:
			out[ci] = closest(tries[ci])
		case js[0].Regression() && len(js) > 1:
			out[ci] = js[1]
		default:
			out[ci] = js[0]
		}
	}
	return out, nil
}

// record adds session s of case c to its rounds file under dir and
// writes its baselines anew from all the sessions recorded (the newest
// baselines.DefaultKeep kept).
func record(c Case, dir string, s Session) error {
	if _, err := c.Baseline(s); err != nil {
		return err
	}
	roundsPath := filepath.Join(dir, "rounds", c.Name+".jsonl")
	if err := appendSession(roundsPath, s); err != nil {
		return err
	}
	ss, err := readSessions(roundsPath)
	if err != nil {
		return err
	}
	return writeBaselines(c, dir, ss)
}

// writeBaselines writes the baseline of each figure of case c grown
// from sessions ss under dir.
func writeBaselines(c Case, dir string, ss []Session) error {
	for _, f := range c.figures() {
		b, err := c.growOf(f, ss)
		if err != nil {
			return err
		}
		if err := baselines.WriteFile(filepath.Join(dir, c.File(f)), b); err != nil {
			return err
		}
	}
	return nil
}

func selected(name string) bool {
	v := os.Getenv(envCases)
	if v == "" {
		return true
	}
	for _, s := range strings.Split(v, ",") {
		if s != "" && strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func medianOf(rounds []Round, f func(Round) float64) float64 {
	return median(values(rounds, f))
}

func lowOf(rounds []Round, f func(Round) float64) float64 {
	return low(values(rounds, f))
}

func values(rounds []Round, f func(Round) float64) []float64 {
	x := make([]float64, len(rounds))
	for i, r := range rounds {
		x[i] = f(r)
	}
	return x
}

// buildStortest builds the command line of this tree, with tags, into
// the test's temporary directory.
func buildStortest(t *testing.T, tags string) string {
	t.Helper()
	var args []string
	if tags != "" {
		args = []string{"-tags", tags}
	}
	return proctest.GoBuild(t, "stortest", "build", append(args, "stortest.dev/cmd/stortest")...)
}

// shmFile writes a 128 MiB file in /dev/shm (every page allocated: a
// hole would read as the shared zero page) and removes it when the test
// ends.
func shmFile(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "stortest-perf-")
	if err != nil {
		t.Fatalf("the perf gate needs /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	p := filepath.Join(d, "data")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.Repeat([]byte{0x5a}, 1<<20)
	for range 128 {
		if _, err := f.Write(buf); err != nil {
			f.Close()
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// measure runs one tool's job and reads its JSON: the read I/Os, their
// IOPS, and the job thread's CPU per I/O, from fio's usr_cpu and
// sys_cpu (percentages of job_runtime, in ms), read alike for both.
//
// Each tool starts in a session of its own. fio's job process calls
// setsid, and with the kernel's autogroup scheduling
// (/proc/sys/kernel/sched_autogroup_enabled) a session is scheduled as a
// group of its own: beside a busy session (other tests, stress-ng) fio's
// job gets a group's share of the CPU where a job thread that stayed in
// the busy session gets a thread's. On a loaded 2-CPU host that made
// stortest's io_uring and libaio IOPS a third to a half of fio's with
// the same CPU per I/O.
func measure(t *testing.T, name string, argv []string) Measure {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", name, strings.Join(argv, " "), err, stderr.String())
	}
	var doc struct {
		Jobs []struct {
			JobRuntime float64 `json:"job_runtime"`
			UsrCPU     float64 `json:"usr_cpu"`
			SysCPU     float64 `json:"sys_cpu"`
			Read       struct {
				TotalIOs uint64  `json:"total_ios"`
				IOPS     float64 `json:"iops"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := fio.UnmarshalJSON(out, argv[0], &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc.Jobs) != 1 {
		t.Fatalf("%s: %s printed %d jobs, want 1", name, argv[0], len(doc.Jobs))
	}
	j := doc.Jobs[0]
	cpu := (j.UsrCPU + j.SysCPU) / 100 * j.JobRuntime * 1e6 // ns
	if j.Read.TotalIOs == 0 || !(cpu > 0) || !(j.Read.IOPS > 0) {
		t.Fatalf("%s: %s: no I/O or no CPU measured (ios %d, cpu %.0f ns, iops %.0f)", name, argv[0], j.Read.TotalIOs, cpu, j.Read.IOPS)
	}
	return Measure{IOs: j.Read.TotalIOs, IOPS: j.Read.IOPS, CPUPerIO: cpu / float64(j.Read.TotalIOs)}
}
