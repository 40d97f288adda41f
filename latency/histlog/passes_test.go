package histlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/latency"
)

// bitsSink writes every figure of every row to the bit (%x of a float64
// is exact), so outputs compare as text: CSVSink's six significant
// digits would hide a difference in the last bits of a sum.
type bitsSink struct{ b bytes.Buffer }

func (s *bitsSink) Begin(sum *Summary) error {
	fmt.Fprintf(&s.b, "begin %d %d %v %q %v %v %v\n", sum.Start, sum.Quantum, sum.Format, sum.Labels, sum.Percentiles, sum.Directions, sum.ByInput)
	return nil
}

func (s *bitsSink) Row(r *Row) error {
	fmt.Fprintf(&s.b, "%d %v %d %x %x %x %x %x\n", r.Time, r.Dir, r.Inputs, r.Samples, r.Min, r.Max, r.Percentiles, r.ByInput)
	return nil
}

func (s *bitsSink) End(sum *Summary) error {
	fmt.Fprintf(&s.b, "end %d quanta, %d late\n", sum.Quanta, sum.Late)
	return nil
}

// genPassLogs writes n logs under dir that a merge adds in fractions:
// rows a few ms off the second (so they straddle quanta), logging
// intervals of 1 s and 0.5 s, starts up to 3 s apart, spans of 6 to 14
// intervals. With fio false they also mix coarseness 0, 3 and 6, 29 and
// 32 groups, trims, and read rows written after later writes (late with
// a small window); with fio true they are what fio-histo-log-pctiles.py
// takes: fio's 1856 columns, reads and writes.
func genPassLogs(t testing.TB, dir string, n int, fio bool) []string {
	t.Helper()
	wide, err := latency.NewLayout(32)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, n)
	for i := range paths {
		rng := rand.New(rand.NewPCG(uint64(i), 15))
		coarse, layout := 0, latency.FioLayout
		if !fio {
			coarse = []int{0, 3, 6}[i%3]
			if i%7 == 6 {
				coarse, layout = 0, wide
			}
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, coarse)
		if err != nil {
			t.Fatal(err)
		}
		h := latency.New(layout)
		row := func(ms int64, d Direction) {
			h.Reset()
			median := 20e3 * float64(1+i%5) * float64(1+d)
			for range 20 + rng.IntN(180) {
				h.Add(uint64(median * (0.5 + rng.ExpFloat64())))
			}
			if err := w.WriteInterval(uint64(ms), d, 4096, h); err != nil {
				t.Fatal(err)
			}
		}
		interval := int64(1000 / (1 + i%2))
		start := int64(rng.IntN(3000))
		dirs := []Direction{Read, Write}
		if !fio && i%5 == 0 {
			dirs = append(dirs, Trim)
		}
		late := !fio && i%11 == 3
		for k := int64(1); k <= 6+int64(rng.IntN(9)); k++ {
			for _, d := range dirs {
				if late && d == Read && k > 2 {
					continue
				}
				row(start+k*interval+int64(rng.IntN(40)), d)
			}
		}
		if late {
			row(start+3*interval+17, Read)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("node%d", i%4), FileName("h", i+1))
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(paths[i], buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func pathInputs(paths []string) []Input {
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = ParseInput(p)
	}
	return inputs
}

// mergeBits merges with at most files open (0: the process's limit) and
// returns the output to the bit and the passes reported.
func mergeBits(t *testing.T, inputs []Input, cfg Config, files int) (string, []Pass) {
	t.Helper()
	var passes []Pass
	cfg.Progress = func(p Pass) { passes = append(passes, p) }
	forceFiles = files
	defer func() { forceFiles = 0 }()
	var s bitsSink
	if _, err := Merge(context.Background(), inputs, cfg, &s); err != nil {
		t.Fatalf("%d files: %v", files, err)
	}
	return s.b.String(), passes
}

// TestMergeInPassesIsOneMerge: merged in passes, with as few files open
// as a chain of passes allows and more, logs give the output of one
// merge to the bit, by input included; so does FioPctiles. The
// intermediate files are gone afterwards.
func TestMergeInPassesIsOneMerge(t *testing.T) {
	native := pathInputs(genPassLogs(t, t.TempDir(), 40, false))
	fio := pathInputs(genPassLogs(t, t.TempDir(), 24, true))
	var epoch []Input
	for range 4 {
		epoch = append(epoch, pathInputs([]string{"testdata/edge/epoch-a.log", "testdata/edge/epoch-b.log", "testdata/edge/epoch-c.log"})...)
	}
	tests := []struct {
		name   string
		inputs []Input
		cfg    Config
		window int // forceWindow
		files  []int
	}{
		{"each direction by input", native, Config{ByInput: true}, 0, []int{9, 12, 20, 39}},
		{"small windows, late rows", native, Config{ByInput: true, Quantum: 700 * time.Millisecond}, 2, []int{9, 15}},
		{"one direction", native, Config{Directions: []Direction{Write}, Percentiles: []float64{0, 50, 99.99, 100}}, 1, []int{3, 4, 10}},
		{"all but trims", native, Config{Directions: []Direction{All, Read}, LogHistMsec: 1000}, 0, []int{3, 7}},
		{"unix-epoch times", epoch, Config{ByInput: true, Quantum: 250 * time.Millisecond}, 3, []int{6, 8}},
		{"fio's logs", pathInputs(mustGlob(t, "testdata/fio/*.log")), Config{}, 0, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forceWindow = tc.window
			defer func() { forceWindow = 0 }()
			tmp := t.TempDir()
			tc.cfg.TempDir = tmp
			want, passes := mergeBits(t, tc.inputs, tc.cfg, 0)
			if len(passes) != 0 {
				t.Fatalf("one merge reported passes %v", passes)
			}
			if strings.Contains(tc.name, "late rows") && strings.HasSuffix(want, " 0 late\n") {
				t.Fatal("the logs make no late rows")
			}
			for _, files := range tc.files {
				got, passes := mergeBits(t, tc.inputs, tc.cfg, files)
				if got != want {
					t.Errorf("%d files open, %d passes: output differs from one merge's (-one +passes):\n%s", files, len(passes), cmp.Diff(want, got))
				}
				checkPasses(t, passes, len(tc.inputs), files)
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("%d files open: %d intermediate files left in the temporary directory", files, len(left))
				}
			}
		})
	}
	t.Run("FioPctiles", func(t *testing.T) {
		fioPctiles := func(files int, opt FioOptions) (string, int) {
			n := 0
			opt.Progress = func(Pass) { n++ }
			forceFiles = files
			defer func() { forceFiles = 0 }()
			var b bytes.Buffer
			if err := FioPctiles(context.Background(), &b, fio, opt); err != nil {
				t.Fatalf("%d files: %v", files, err)
			}
			return b.String(), n
		}
		for _, opt := range []FioOptions{{}, {TimeQuantum: 2, Percentiles: []float64{10, 50, 99.9}, LogHistMsec: 500}} {
			want, _ := fioPctiles(0, opt)
			for _, files := range []int{3, 5, 23} {
				got, passes := fioPctiles(files, opt)
				if passes < 2 || got != want {
					t.Errorf("%+v, %d files open: %d passes; output differs from one merge's (-one +passes):\n%s", opt, files, passes, cmp.Diff(want, got))
				}
			}
		}
	})
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("%s: %v, %d files", pattern, err, len(paths))
	}
	return paths
}

// checkPasses checks the progress reports of a merge of n inputs with
// at most files open: passes in order, each input read once. It
// continues after a failure.
func checkPasses(t *testing.T, passes []Pass, n, files int) {
	t.Helper()
	if len(passes) < 2 {
		t.Errorf("%d logs, %d files open: %d passes reported", n, files, len(passes))
		return
	}
	next := 0
	for k, p := range passes {
		if p.N != k+1 || p.Passes != len(passes) || p.First != next || p.Logs < 1 || p.Inputs != n || p.Files != files {
			t.Errorf("pass %d reported as %+v", k+1, p)
		}
		next = p.First + p.Logs
	}
	if next != n {
		t.Errorf("the passes read %d logs of %d", next, n)
	}
}

// TestPlanPasses: every plan reads each input once, in order, keeps
// each pass within the files allowed, and has as few passes as a chain
// can; a plan fails only when a pass cannot add a log.
func TestPlanPasses(t *testing.T) {
	// The most logs p passes can hold (p >= 2), -1 when a pass of them
	// holds none.
	most := func(p, files int, side bool) int {
		s := btoi(side)
		first, mid, last := files-1-s, files-2-s, files-1-s*(p-1)
		if first < 1 || last < 1 || p > 2 && mid < 1 {
			return -1
		}
		return first + (p-2)*mid + last
	}
	held := func(k, passes, logs int, side bool) int {
		h := logs
		if k > 0 {
			h++ // the partial sums read
		}
		if k < passes-1 {
			h++ // the partial sums written
			if side {
				h++
			}
		} else if side {
			h += passes - 1
		}
		return h
	}
	for _, side := range []bool{false, true} {
		for files := 1; files <= 12; files++ {
			for n := 1; n <= 60; n++ {
				plan := planPasses(n, files, side)
				name := fmt.Sprintf("%d logs, %d files, side files %v", n, files, side)
				if plan == nil {
					for p := 2; p <= n; p++ {
						if most(p, files, side) >= n {
							t.Errorf("%s: no plan, but %d passes hold them", name, p)
						}
					}
					continue
				}
				lo := 0
				for k, g := range plan {
					if g.lo != lo || g.hi <= g.lo {
						t.Fatalf("%s: pass %d reads [%d, %d) after %d", name, k, g.lo, g.hi, lo)
					}
					if len(plan) > 1 && held(k, len(plan), g.hi-g.lo, side) > files {
						t.Errorf("%s: pass %d of %d holds %d files", name, k+1, len(plan), held(k, len(plan), g.hi-g.lo, side))
					}
					lo = g.hi
				}
				if lo != n {
					t.Errorf("%s: %d logs read", name, lo)
				}
				// One pass fewer cannot hold them all.
				for p := 2; p < len(plan); p++ {
					if m := most(p, files, side); m >= n {
						t.Errorf("%s: %d passes where %d hold %d logs", name, len(plan), p, m)
					}
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestMergeInPassesCleansUp: a corrupt log in a later pass fails the
// merge with an error naming it, and leaves no intermediate file; so
// does a cancelled merge. Too few files for passes fail with advice.
func TestMergeInPassesCleansUp(t *testing.T) {
	dir := t.TempDir()
	paths := genPassLogs(t, dir, 12, false)
	bad := paths[9] // in the last of 3 passes with 7 files
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[len(lines)-2] = "99999, 1, 4096, 7, x\n"
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	forceFiles = 7
	defer func() { forceFiles = 0 }()
	var passes []Pass
	cfg := Config{ByInput: true, TempDir: tmp, Progress: func(p Pass) { passes = append(passes, p) }}
	_, err = Merge(context.Background(), pathInputs(paths), cfg, &bitsSink{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != bad || !strings.Contains(err.Error(), bad) {
		t.Errorf("merge with %s corrupt: %v, want a *ParseError naming it", bad, err)
	}
	if len(passes) < 2 || passes[0].First+passes[0].Logs > 9 {
		t.Errorf("passes %+v: the corrupt log is not in a later pass", passes)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d intermediate files left after the failure", len(left))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(p Pass) {
		if p.N == 2 {
			cancel()
		}
	}
	if _, err := Merge(ctx, pathInputs(paths[:8]), cfg, &bitsSink{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled merge: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d intermediate files left after cancelling", len(left))
	}

	// Too few files to chain passes: an error that says what to do.
	forceFiles = 4
	_, err = Merge(context.Background(), pathInputs(paths), Config{ByInput: true, TempDir: tmp}, &bitsSink{})
	if !errors.Is(err, syscall.EMFILE) || !strings.HasPrefix(err.Error(), "histlog: 12 logs") || !strings.Contains(err.Error(), "ulimit -n") {
		t.Errorf("merge with room for 4 files: %v, want EMFILE and advice", err)
	}
}

// The child of TestMergeUnderFileLimit: lowers its own limit on open
// files (soft and hard, for good: it is a process of its own), merges
// the logs of $HISTLOG_LIMIT_CHILD and writes what it saw there.
const limitChildEnv = "HISTLOG_LIMIT_CHILD"

// TestMergeUnderFileLimit merges more logs than the hard limit on open
// files allows, in a child process whose limit is lowered (this test
// binary, run again): the same output as one merge in this process, to
// the bit, by input included, and for FioPctiles; also when the child
// believes it has room for them all and learns otherwise from open's
// EMFILE.
func TestMergeUnderFileLimit(t *testing.T) {
	if dir := os.Getenv(limitChildEnv); dir != "" {
		limitChild(t, dir)
		return
	}
	if openFiles() < 0 {
		t.Skip("no /proc/self/fd to count open files")
	}
	const soft, hard = 40, 64
	for _, set := range []struct {
		name       string
		n          int
		fio, blind bool // blind: the child's budget says every log fits
	}{{"native", 150, false, false}, {"fio", 100, true, false}, {"EMFILE", 150, false, true}} {
		t.Run(set.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := genPassLogs(t, filepath.Join(dir, "logs"), set.n, set.fio)
			if err := os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(paths, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			want, _ := limitMerge(t, pathInputs(paths), set.fio)

			t0 := time.Now()
			cmd := exec.Command(os.Args[0], "-test.run=^TestMergeUnderFileLimit$", "-test.v")
			cmd.Env = append(os.Environ(), limitChildEnv+"="+dir, fmt.Sprintf("HISTLOG_LIMITS=%d %d %v %v", soft, hard, set.fio, set.blind))
			out, err := cmd.CombinedOutput()
			took := time.Since(t0)
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			got, err := os.ReadFile(filepath.Join(dir, "output"))
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if string(got) != want {
				t.Errorf("%d logs under a limit of %d files: output differs from one merge's (-one +passes):\n%s", set.n, hard, cmp.Diff(want, string(got)))
			}
			report, _ := os.ReadFile(filepath.Join(dir, "report"))
			var passes, files, limit, open int
			if _, err := fmt.Sscanf(string(report), "%d passes, %d files, limit %d, %d open", &passes, &files, &limit, &open); err != nil {
				t.Fatalf("child's report %q: %v\n%s", report, err, out)
			}
			// The soft limit was raised to the hard one.
			room := hard - open - reservedFiles
			if set.blind {
				room = hard - open // all it could open, give or take a transient descriptor
			}
			if passes < 2 || limit != hard || files > room+1 || files < room-2 {
				t.Errorf("child: %s; want passes of up to %d files and the soft limit raised to %d", report, room, hard)
			}
			t.Logf("%d logs, limit %d files (soft %d raised), %d open: %d passes of up to %d files; child took %v",
				set.n, limit, soft, open, passes, files, took.Round(time.Millisecond))
		})
	}
}

// limitMerge merges inputs to the bit (with fio, as FioPctiles) and
// returns the output and the passes reported.
func limitMerge(t *testing.T, inputs []Input, fio bool) (string, []Pass) {
	t.Helper()
	var passes []Pass
	progress := func(p Pass) { passes = append(passes, p) }
	if fio {
		var b bytes.Buffer
		if err := FioPctiles(context.Background(), &b, inputs, FioOptions{Progress: progress}); err != nil {
			t.Fatal(err)
		}
		return b.String(), passes
	}
	var s bitsSink
	if _, err := Merge(context.Background(), inputs, Config{ByInput: true, Progress: progress}, &s); err != nil {
		t.Fatal(err)
	}
	return s.b.String(), passes
}

func limitChild(t *testing.T, dir string) {
	list, err := os.ReadFile(filepath.Join(dir, "list"))
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Split(string(list), "\n")
	var soft, hard uint64
	var fio, blind bool
	if _, err := fmt.Sscan(os.Getenv("HISTLOG_LIMITS"), &soft, &hard, &fio, &blind); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: soft, Max: hard}); err != nil {
		t.Fatal(err)
	}
	if blind {
		forceFiles = len(paths) + 1
	}
	out, passes := limitMerge(t, pathInputs(paths), fio)
	if err := os.WriteFile(filepath.Join(dir, "output"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(passes) == 0 {
		t.Fatalf("%d logs merged in one pass under a limit of %d files", len(paths), hard)
	}
	p := passes[0]
	if blind {
		p.Limit = raiseFileLimit() // forceFiles hid it
	}
	report := fmt.Sprintf("%d passes, %d files, limit %d, %d open", p.Passes, p.Files, p.Limit, p.Open)
	if err := os.WriteFile(filepath.Join(dir, "report"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
}
