package baselines

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// realRun runs job over a file of job.Size zero bytes in a temporary
// directory (its Filename), with opts, and returns the run and its
// baseline (FromResult with fp). It stops the test (FailNow) when the run
// or a job of it fails, or the baseline cannot be made.
func realRun(t *testing.T, job workload.Job, opts workload.Options, fp Fingerprint) (*workload.Result, *Baseline) {
	t.Helper()
	job.Filename = filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(job.Filename, make([]byte, job.Size), 0o644))
	res, err := runner.Run(context.Background(), job, opts)
	require.NoError(t, err)
	require.NoError(t, res.Err())
	b, err := FromResult(res, fp)
	require.NoError(t, err)
	return res, b
}

// synthJob returns a deterministic job result: seconds whole seconds plus
// a partial last one of 400 ms, reads at ~perSec I/Os per second (writes
// at a third of that when mixed), lognormal latencies around 100µs.
func synthJob(t testing.TB, name string, clone, seconds, perSec int, mixed bool, seed uint64) *workload.JobResult {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(clone)))
	layout := latency.MustLayout(latency.LongGroups)
	rw := workload.RandRead
	if mixed {
		rw = workload.RandRW
	}
	jr := &workload.JobResult{
		Name: name, Clone: clone, Engine: "io_uring", Target: "/dev/loop7",
		Job:   workload.Job{Name: name, Filename: "/dev/loop7", Engine: "io_uring", RW: rw, IODepth: 16, Direct: true, Runtime: time.Duration(seconds) * time.Second, TimeBased: true},
		Start: time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC),
	}
	for d := range workload.NumDirs {
		jr.Dirs[d] = workload.DirStats{Slat: latency.New(layout), Clat: latency.New(layout), Lat: latency.New(layout)}
	}
	sec := [workload.NumDirs]*latency.Histogram{latency.New(layout), latency.New(layout), latency.New(layout)}
	var elapsed time.Duration
	for s := 0; s <= seconds; s++ {
		dur := time.Second
		if s == seconds {
			dur = 400 * time.Millisecond // the partial last interval
		}
		elapsed += dur
		second := workload.Second{T: elapsed, Dur: dur}
		for d, n := range [2]int{perSec, perSec / 3} {
			if d == 1 && !mixed {
				continue
			}
			n = int(float64(n) * dur.Seconds() * (0.9 + 0.2*rng.Float64()))
			sec[d].Reset()
			ds := &jr.Dirs[d]
			for range n {
				v := uint64(100e3 * math.Exp(0.4*rng.NormFloat64()))
				sec[d].Add(v)
				ds.Clat.Add(v)
				ds.Slat.Add(v / 50)
				ds.Lat.Add(v + v/50)
			}
			ds.IOs += uint64(n)
			ds.Bytes += uint64(n) * 4096
			second.IOs[d] = uint64(n)
			second.Bytes[d] = uint64(n) * 4096
			second.Clat[d] = latency.NewSparse(sec[d])
		}
		jr.Seconds = append(jr.Seconds, second)
	}
	jr.Runtime = elapsed
	return jr
}

// synthBaseline is FromJobResult of synthJob.
func synthBaseline(t testing.TB, seconds, perSec int, mixed bool, seed uint64) *Baseline {
	t.Helper()
	b, err := FromJobResult(synthJob(t, "randread-4k", 0, seconds, perSec, mixed, seed),
		Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Example NVMe", Serial: "S123", Firmware: "1.2", Kernel: "6.18.0"})
	if err != nil {
		t.Fatal(err)
	}
	b.Session = "" // deterministic: the tests of sessions set their own
	return b
}

// fioFiles returns the recorded fio outputs.
func fioFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "fio", "*.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("recorded fio outputs: %v (%d files)", err, len(files))
	}
	return files
}

func importFile(t testing.TB, path string) []*Baseline {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bs, err := ImportFio(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func errNotExist() error { return os.ErrNotExist }

func compact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }

// withSlices gives jr slices that split each of its seconds into slices
// of workload.SliceInterval (a partial second into as many as fit, the
// remainder in its last), its completions spread evenly over them.
func withSlices(jr *workload.JobResult) *workload.JobResult {
	var prev time.Duration
	for _, s := range jr.Seconds {
		n := max(1, int(s.Dur/workload.SliceInterval))
		for k := range n {
			sl := workload.Slice{T: prev + time.Duration(k+1)*workload.SliceInterval, Dur: workload.SliceInterval}
			if k == n-1 {
				sl.T = s.T
				sl.Dur = s.T - (prev + time.Duration(k)*workload.SliceInterval)
			}
			for d := range workload.NumDirs {
				sl.IOs[d] = s.IOs[d] / uint64(n)
				if k == n-1 {
					sl.IOs[d] += s.IOs[d] % uint64(n)
				}
				sl.Bytes[d] = sl.IOs[d] * 4096
			}
			jr.Slices = append(jr.Slices, sl)
		}
		prev = s.T
	}
	return jr
}

// schema3Baseline is the baseline of testdata/schema3.json: a mixed job
// with slices, three runs, tolerances and a size.
func schema3Baseline(t testing.TB) *Baseline {
	t.Helper()
	fp := Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Example NVMe", Serial: "S123", Firmware: "1.2", Kernel: "6.18.0", Size: 1 << 40}
	runs := make([]*Baseline, 3)
	for i := range runs {
		b, err := FromJobResult(withSlices(synthJob(t, "randrw-4k", 0, 2, 300, true, uint64(20+i))), fp)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = b
	}
	for _, r := range runs[1:] {
		r.Session = ""
		if err := runs[0].AddRun(r); err != nil {
			t.Fatal(err)
		}
	}
	runs[0].Tolerances = "*.iops=5%,*.clat.p99=off"
	runs[0].Schema, runs[0].Session, runs[0].Runs[0].Session = 3, "", ""
	return runs[0]
}

// schema4Baseline is schema3Baseline in schema 4: its first two runs
// recorded in one session (go test -count=2), the third in another.
func schema4Baseline(t testing.TB) *Baseline {
	t.Helper()
	b := schema3Baseline(t)
	b.Schema = SchemaVersion
	b.Session = "5e55000000000001"
	b.Runs[0].Session, b.Runs[1].Session, b.Runs[2].Session = b.Session, b.Session, "5e55000000000002"
	return b
}

// update is the shared -update flag: rewrite the golden files.
var update = testenv.Update

// goldenRoundTrip checks a golden baseline file, testdata/name: it loads
// to want, the baseline it was written from, and writes back to the same
// bytes. Under -update it is rewritten from want first (after a
// deliberate format change; test names the test that does it). It
// returns the file's bytes and what it loaded to.
func goldenRoundTrip(t *testing.T, name, test string, want *Baseline) ([]byte, *Baseline) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		data, err := Marshal(want)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./baselines -run %s -update writes it", test)
	got, err := Load(path)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s (-built +loaded):\n%s\n(go test ./baselines -run %s -update rewrites it)", path, diff, test)
	}
	again, err := Marshal(got)
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))
	return data, got
}
