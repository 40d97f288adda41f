package stortest

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// fakeTB records what the code under test reports through testing.TB.
// It embeds the real test for what it does not record (Helper, TempDir,
// ArtifactDir, Context, Setenv). Fatal, FailNow and Skip end the
// goroutine of fake.run, as they end a test's. Cleanups wait for finish.
type fakeTB struct {
	testing.TB
	name string

	mu       sync.Mutex
	errors   []string
	fatals   []string
	skips    []string
	logs     []string
	attrs    map[string]string
	failed   bool
	skipped  bool
	cleanups []func()
}

func newFake(t *testing.T) *fakeTB {
	return &fakeTB{TB: t, name: t.Name(), attrs: map[string]string{}}
}

// run calls f as a test body: until it returns or stops the test.
func (f *fakeTB) run(body func(tb testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
}

// finish runs the cleanups, last first, as the testing package does.
func (f *fakeTB) finish() {
	f.mu.Lock()
	cs := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

func (f *fakeTB) Name() string { return f.name }

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
	f.failed = true
}

func (f *fakeTB) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeTB) FailNow() {
	f.Fail()
	runtime.Goexit()
}

// pass forgets that the test failed, as a new test starts clean: for a
// test whose phases share one fake, so that a phase that fails on
// purpose does not count against the next (a failed test records no
// baseline).
func (f *fakeTB) pass() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = false
}

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	f.FailNow()
}

func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Skipf(format string, args ...any) {
	f.mu.Lock()
	f.skips = append(f.skips, fmt.Sprintf(format, args...))
	f.skipped = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Skip(args ...any) { f.Skipf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) SkipNow() { f.Skipf("") }

func (f *fakeTB) Skipped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.skipped
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Log(args ...any) { f.Logf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Attr(key, value string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attrs[key] = value
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// asUser makes the package see a non-root effective user for the test.
func asUser(t *testing.T) {
	t.Cleanup(func() { geteuid = os.Geteuid })
	geteuid = func() int { return 1000 }
}

// syntheticResult is a run of job "mix" (randrw, psync, one clone) over
// 2 s: 2000 reads, half at 100 µs and half at 300 µs completion latency,
// and 500 writes at 50 µs; no slat (a synchronous engine).
func syntheticResult() *Result {
	job := workload.Job{Name: "mix", RW: workload.RandRW, BlockSize: 4096, Filename: "/dev/null"}.Normalized()
	jr := workload.NewJobResult(job, 0, latency.FioLayout)
	jr.Runtime = 2 * time.Second
	r := &jr.Dirs[workload.DirRead]
	for i := range 2000 {
		v := uint64(100_000)
		if i >= 1000 {
			v = 300_000
		}
		r.Clat.Add(v)
		r.Lat.Add(v + 2000)
	}
	r.IOs, r.Bytes = 2000, 2000*4096
	w := &jr.Dirs[workload.DirWrite]
	for range 500 {
		w.Clat.Add(50_000)
		w.Lat.Add(52_000)
	}
	w.IOs, w.Bytes = 500, 500*4096
	return &Result{Result: &workload.Result{Jobs: []*workload.JobResult{jr}}, Job: job, rec: &record{}}
}

// runFake runs body as a test under a new fake and finishes it.
func runFake(t *testing.T, body func(tb testing.TB)) *fakeTB {
	f := newFake(t)
	f.run(body)
	f.finish()
	return f
}

// requireWrites runs job on the device at path under a fake TB and stops
// the test (what names the case) unless the run went through and wrote
// n bytes: the safety guard let it write.
func requireWrites(t *testing.T, path string, job workload.Job, n uint64, what string) {
	t.Helper()
	var r *Result
	f := runFake(t, func(tb testing.TB) { r = Run(tb, Device(tb, path), job) })
	if r == nil || r.Jobs[0].Dirs[workload.DirWrite].Bytes != n {
		t.Fatalf("%s: fatals %q, errors %q", what, f.fatals, f.errors)
	}
}
