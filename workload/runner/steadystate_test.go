package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/steady"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

func TestSteadyConfig(t *testing.T) {
	tests := []struct {
		name    string
		job     workload.Job
		ok      bool
		want    string // criteria
		wantErr error
	}{
		{name: "none", job: workload.Job{}},
		{name: "ss without ss_dur is off as in fio", job: workload.Job{SS: "iops:5%"}},
		{name: "ss_dur alone takes fio's default", job: workload.Job{SSDur: 5 * time.Second}, ok: true, want: "iops_slope:0.01%"},
		{name: "several criteria", job: workload.Job{SS: "iops:5%,clat_p99:10%", SSDur: 3 * time.Second}, ok: true, want: "iops:5%, clat_p99:10%"},
		{name: "pts needs no window", job: workload.Job{SS: "pts:iops:10s"}, ok: true, want: "pts:iops:10s"},
		{name: "bad criterion", job: workload.Job{SS: "iops:5%%", SSDur: time.Second}, wantErr: steady.ErrSyntax},
		{name: "slope over one second", job: workload.Job{SS: "iops_slope:1%", SSDur: time.Second}, wantErr: errAny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.job.Name = "j"
			cfg, ok, err := SteadyConfig(tc.job)
			if tc.wantErr != nil {
				require.Error(t, err)
				if tc.wantErr != errAny {
					assert.ErrorIs(t, err, tc.wantErr)
				}
				assert.Contains(t, err.Error(), "workload: job j")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, cfg.Criteria.String())
				assert.Equal(t, tc.job.SSDur, cfg.Window)
			}
		})
	}
}

var errAny = errors.New("any error")

// ssFeed drives a steadyRun with made-up seconds, as the runner's tick
// does: n reads of 4 KiB per second, all with the same latency.
type ssFeed struct {
	s     *steadyRun
	r     *workload.JobResult
	delta [workload.NumDirs]*latency.Histogram
}

func newSSFeed(t *testing.T, job workload.Job, opts workload.Options) *ssFeed {
	t.Helper()
	layout := latency.MustLayout(latency.FioGroups)
	job.Name = "feed"
	s, err := newSteadyRun(job, layout, opts)
	require.NoError(t, err)
	require.NotNil(t, s)
	f := &ssFeed{s: s, r: &workload.JobResult{Job: job, Seconds: make([]workload.Second, 0, 1024)}}
	for d := range workload.NumDirs {
		f.r.Dirs[d] = workload.DirStats{Slat: latency.New(layout), Clat: latency.New(layout), Lat: latency.New(layout)}
		f.delta[d] = latency.New(layout)
	}
	return f
}

// add feeds one second and returns the runner's stop flag.
func (f *ssFeed) add(n int, clat time.Duration) bool {
	for d := range workload.NumDirs {
		f.delta[d].Reset()
	}
	s := &f.r.Dirs[workload.DirRead]
	for range n {
		s.IOs++
		s.Bytes += 4096
		s.Clat.Add(uint64(clat))
		s.Lat.Add(uint64(clat + time.Microsecond))
		f.delta[workload.DirRead].Add(uint64(clat))
	}
	sec := workload.Second{T: time.Duration(len(f.r.Seconds)+1) * time.Second, Dur: time.Second}
	sec.IOs[workload.DirRead], sec.Bytes[workload.DirRead] = uint64(n), uint64(n)*4096
	f.r.Seconds = append(f.r.Seconds, sec)
	return f.s.second(f.r, &f.delta)
}

type ssEvent struct {
	Event  string
	Sample int
}

func events(res *workload.SteadyResult) []ssEvent {
	var out []ssEvent
	for _, e := range res.Events {
		out = append(out, ssEvent{e.Event.String(), e.Sample})
	}
	return out
}

// The runner's steady-state logic over made-up seconds: where it stops,
// which events it reports, and which seconds make the latency window.
func TestSteadyRun(t *testing.T) {
	const us = time.Microsecond
	type sec struct {
		n    int
		clat time.Duration
	}
	rep := func(n int, s sec) []sec {
		out := make([]sec, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	cat := func(parts ...[]sec) []sec {
		var out []sec
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	hi, lo := sec{1000, 100 * us}, sec{500, 100 * us}
	tests := []struct {
		name     string
		job      workload.Job
		opts     workload.Options
		seconds  []sec
		stopAt   int // sample that stops the job, -1 for none
		reason   string
		events   []ssEvent
		attained bool
		steady   bool
		losses   int
		check    func(t *testing.T, f *ssFeed, res *workload.SteadyResult)
	}{{
		name: "fio stops at attainment", job: workload.Job{SS: "iops:5%", SSDur: 3 * time.Second},
		seconds: rep(5, hi), stopAt: 2, reason: "steady state attained",
		events: []ssEvent{{"attained", 2}}, attained: true, steady: true,
	}, {
		name: "ramp delays the window", job: workload.Job{SS: "iops:5%", SSDur: 2 * time.Second, SSRamp: 2 * time.Second},
		// Samples count from 3 s (ramp + 1 s): samples 2 and 3 fill the window.
		seconds: rep(6, hi), stopAt: 3, reason: "steady state attained",
		events: []ssEvent{{"attained", 3}}, attained: true, steady: true,
	}, {
		name: "continue reports losses", job: workload.Job{SS: "iops:5%", SSDur: 3 * time.Second}, opts: workload.Options{SteadyContinue: true},
		seconds: cat(rep(3, hi), rep(3, lo), rep(3, hi)), stopAt: -1,
		events:   []ssEvent{{"attained", 2}, {"lost", 3}, {"regained", 5}, {"lost", 6}, {"regained", 8}},
		attained: true, steady: true, losses: 2,
		check: func(t *testing.T, f *ssFeed, res *workload.SteadyResult) {
			l := res.Losses[0]
			assert.Equal(t, 4*time.Second, l.StartElapsed)
			assert.Equal(t, 6*time.Second, l.EndElapsed)
			// Window [1000 1000 500]: mean 833.3, deviation 333.3 = 40%;
			// then [1000 500 500]: 50% of 666.7.
			assert.InDelta(t, 40, l.Value, 1e-9)
			assert.InDelta(t, 50, l.Worst, 1e-9)
			assert.Equal(t, 5.0, l.Limit)
		},
	}, {
		name: "unattainable runs to the end", job: workload.Job{SS: "iops:1", SSDur: 2 * time.Second},
		seconds: []sec{{1000, 100 * us}, {1010, 100 * us}, {990, 100 * us}, {1005, 100 * us}}, stopAt: -1,
		check: func(t *testing.T, f *ssFeed, res *workload.SteadyResult) {
			require.NotNil(t, res.Report.Fio)
			assert.Equal(t, 0, res.Report.Fio.Attained)
			assert.Equal(t, []uint64{990, 1005}, res.Report.Fio.Data.IOPS, "the last window")
			assert.Contains(t, res.Last, "not steady")
		},
	}, {
		name: "latency window retried until the criteria hold over it",
		job:  workload.Job{SS: "iops:5%", SSDur: 3 * time.Second}, opts: workload.Options{SteadyLatencyWindow: true},
		// Attained at sample 2; the window 3-5 holds a dip (fails); steady
		// again at 7 (window 5-7); window 8-10 is kept, at 200 us.
		seconds: cat(rep(4, hi), rep(1, lo), rep(3, hi), rep(3, sec{1000, 200 * us}), rep(2, hi)),
		stopAt:  10, reason: "steady state attained and its latency window measured",
		events:   []ssEvent{{"attained", 2}, {"lost", 4}, {"regained", 7}},
		attained: true, steady: true, losses: 1,
		check: func(t *testing.T, f *ssFeed, res *workload.SteadyResult) {
			assert.Equal(t, 2, res.LatencyAttempts)
			l := res.Latency
			require.NotNil(t, l)
			assert.Equal(t, 2, l.Attempt)
			assert.Equal(t, 8, l.First)
			assert.Equal(t, 10, l.Last)
			assert.Equal(t, 8*time.Second, l.Start)
			assert.Equal(t, 11*time.Second, l.End)
			assert.Equal(t, uint64(3000), l.All.Count())
			assert.Equal(t, uint64(3000), l.Clat[workload.DirRead].Count())
			assert.Zero(t, l.Clat[workload.DirWrite].Count())
			lay := l.All.Layout()
			want := lay.Value(lay.Index(uint64(200 * us)))
			assert.Equal(t, want, l.All.Percentile(1), "only the kept window's seconds")
			assert.Equal(t, want, l.All.Percentile(99.99))
		},
	}, {
		name: "latency criteria on clat and total latency", job: workload.Job{SS: "iops:50%,clat_p99:10%,lat_p50:10%", SSDur: 2 * time.Second},
		opts:    workload.Options{SteadyContinue: true},
		seconds: cat(rep(3, hi), rep(1, sec{1000, 300 * us}), rep(3, hi)), stopAt: -1,
		events:   []ssEvent{{"attained", 1}, {"lost", 3}, {"regained", 5}},
		attained: true, steady: true, losses: 1,
		check: func(t *testing.T, f *ssFeed, res *workload.SteadyResult) {
			assert.Equal(t, 1, res.Losses[0].Criterion, "clat_p99 fails first")
			lat := res.Report.Stortest.Lat
			require.Len(t, lat, 2)
			assert.Equal(t, "clat_p99", lat[0].Name)
			assert.Equal(t, "lat_p50", lat[1].Name)
			lay := f.delta[0].Layout()
			assert.Equal(t, int64(lay.Value(lay.Index(uint64(101*us)))), lat[1].Ns[1], "total latency is clat + 1us here")
		},
	}, {
		name: "seconds without I/O hold no latency", job: workload.Job{SS: "clat_p99:10%", SSDur: 2 * time.Second},
		seconds: []sec{hi, {0, 0}, hi, hi}, stopAt: 3, reason: "steady state attained",
		events: []ssEvent{{"attained", 3}}, attained: true, steady: true,
	}, {
		name: "pts gives up at its round cap", job: workload.Job{SS: "pts:iops:1s"},
		seconds: func() []sec {
			var out []sec
			for i := range 30 {
				out = append(out, sec{10 + 90*(i%2), us})
			}
			return out
		}(),
		stopAt: 24, reason: "no steady state within the PTS round cap",
		check: func(t *testing.T, f *ssFeed, res *workload.SteadyResult) {
			assert.True(t, res.Capped)
			assert.Nil(t, res.Report.Fio, "no criterion fio knows")
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSSFeed(t, tc.job, tc.opts)
			stopped := -1
			for i, s := range tc.seconds {
				if f.add(s.n, s.clat) {
					stopped = i
					break
				}
			}
			assert.Equal(t, tc.stopAt, stopped, "stopped at sample")
			res := f.s.result()
			assert.Equal(t, tc.stopAt >= 0, res.Stopped)
			assert.Equal(t, tc.reason, res.StopReason)
			if diff := cmp.Diff(tc.events, events(res)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			assert.Equal(t, tc.attained, res.Attained)
			assert.Equal(t, tc.steady, res.Steady)
			assert.Len(t, res.Losses, tc.losses)
			assert.Equal(t, len(f.r.Seconds), res.Samples, "one sample per second")
			if tc.attained {
				assert.Equal(t, time.Duration(tc.events[0].Sample+1)*time.Second, res.AttainedAt)
			}
			if tc.check != nil {
				tc.check(t, f, res)
			}
		})
	}
}

// The per-second work allocates nothing once steady (no event), except
// the latency percentiles: latency.Percentile computes fio's threshold in
// exact arithmetic, a few small allocations per percentile and second.
func TestSteadyRunAllocs(t *testing.T) {
	tests := []struct {
		name string
		ss   string
		max  float64 // allocations per second
	}{
		{name: "iops and bw", ss: "iops:5%,bw_slope:1%"},
		{name: "latency", ss: "iops:5%,clat_p99:10%,lat_p99.9_slope:5%", max: 2 * 3}, // two percentiles
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSSFeed(t, workload.Job{SS: tc.ss, SSDur: 5 * time.Second}, workload.Options{SteadyContinue: true, SteadyLatencyWindow: true})
			for range 20 { // attained, then the latency window is kept
				f.add(100, 50*time.Microsecond)
			}
			require.NotNil(t, f.s.res.Latency)
			allocs := testing.AllocsPerRun(200, func() {
				f.r.Seconds = f.r.Seconds[:20] // the runner's append is not ours
				f.add(100, 50*time.Microsecond)
			})
			assert.LessOrEqual(t, allocs, tc.max)
			assert.Len(t, f.s.res.Events, 1, "attained only")
		})
	}
}

// rated is a cheap file-backed job: psync reads from the page cache at a
// fixed rate, so every second does the same work.
func ratedJob(t *testing.T, ss string, window, runtime time.Duration) workload.Job {
	target := fileTarget(t, 8<<20)
	return workload.Job{Name: "ss", Filename: target.Path, Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: runtime, TimeBased: true, RateIOPS: [3]int{1000, 0, 0}, SS: ss, SSDur: window}
}

// A rate-limited job reaches steady state within its window and stops,
// far below its runtime, as fio does.
func TestRunStopsAtSteadyState(t *testing.T) {
	for _, ss := range []string{"iops:5%", "iops_slope:2%", "bw:5%,clat_p99:50ms"} {
		t.Run(ss, func(t *testing.T) {
			job := ratedJob(t, ss, 2*time.Second, 20*time.Second)
			r := runJob(t, job, workload.Options{})
			require.NoError(t, r.Err)
			st := r.Steady
			require.NotNil(t, st)
			t.Logf("attained at %v, runtime %v: %s", st.AttainedAt, r.Runtime, st.Last)
			assert.True(t, st.Attained, st.Last)
			assert.True(t, st.Stopped)
			assert.Equal(t, "steady state attained", st.StopReason)
			// The window is two samples: attained after 2 s, unless the
			// first seconds were uneven: on a 2-CPU machine loaded to 80%
			// the rate limiter's catching up kept bw outside 5% until the
			// fifth second (attained at 5.0005 s). Half the runtime still
			// shows the stop.
			assert.GreaterOrEqual(t, st.AttainedAt, 2*time.Second-50*time.Millisecond)
			assert.Less(t, st.AttainedAt, 10*time.Second)
			assert.Less(t, r.Runtime, st.AttainedAt+500*time.Millisecond, "stopped right after attainment")
			require.NotEmpty(t, st.Events)
			assert.Equal(t, steady.Attained, st.Events[0].Event)
			require.NotNil(t, st.Report.Fio)
			assert.Equal(t, 1, st.Report.Fio.Attained)
			sum := summary(t, r)
			assert.Contains(t, sum, "steady state  : "+st.Criteria.String()+" over 2s: attained at")
			assert.Contains(t, sum, "job stopped (steady state attained)")
			checkFioRoundTrip(t, &workload.Result{Jobs: []*workload.JobResult{r}})
		})
	}
}

// A criterion the job cannot meet runs it to the end with attained=0:
// random block sizes make every second's bandwidth differ, so an absolute
// deviation of 1 byte/s never holds.
func TestRunUnattainedRunsToTheEnd(t *testing.T) {
	job := ratedJob(t, "bw:1", 2*time.Second, 3*time.Second)
	job.RateIOPS[workload.DirRead] = 500
	job.BlockSize, job.BlockSizeRange = 0, workload.BlockSizeRange{Min: 4096, Max: 64 << 10}
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	st := r.Steady
	require.NotNil(t, st)
	assert.False(t, st.Attained, st.Last)
	assert.False(t, st.Stopped)
	assert.InDelta(t, 3, r.Runtime.Seconds(), 0.2)
	assert.GreaterOrEqual(t, st.Samples, 3)
	require.NotNil(t, st.Report.Fio)
	assert.Equal(t, 0, st.Report.Fio.Attained)
	assert.Equal(t, 2, st.Report.Fio.Duration)
	sum := summary(t, r)
	assert.Contains(t, sum, "bw:1 over 2s: not attained in 3.0s")
	assert.Contains(t, sum, "last: sample")
	checkFioRoundTrip(t, &workload.Result{Jobs: []*workload.JobResult{r}})
}

// SteadyContinue runs to the end; SteadyLatencyWindow measures the window
// after attainment and stops there.
func TestRunSteadyContinueAndLatencyWindow(t *testing.T) {
	t.Run("continue", func(t *testing.T) {
		job := ratedJob(t, "iops:5%", 2*time.Second, 4*time.Second)
		r := runJob(t, job, workload.Options{SteadyContinue: true})
		st := r.Steady
		require.NotNil(t, st)
		assert.True(t, st.Attained, st.Last)
		assert.False(t, st.Stopped)
		assert.True(t, st.Continue)
		assert.InDelta(t, 4, r.Runtime.Seconds(), 0.2, "ran to the end")
		assert.GreaterOrEqual(t, st.Samples, 4)
	})
	t.Run("measure after", func(t *testing.T) {
		job := ratedJob(t, "iops:5%", 2*time.Second, 20*time.Second)
		r := runJob(t, job, workload.Options{SteadyMeasure: 3 * time.Second})
		st := r.Steady
		require.NotNil(t, st)
		require.True(t, st.Attained, st.Last)
		assert.True(t, st.Stopped)
		assert.Contains(t, st.StopReason, "measured for 3s after")
		// Stopped at the first second at least 3 s past attainment.
		assert.InDelta(t, (st.AttainedAt + 3*time.Second).Seconds(), r.Runtime.Seconds(), 1.1)
		assert.GreaterOrEqual(t, r.Runtime, st.AttainedAt+3*time.Second-100*time.Millisecond)
		// Without it the same job stops at attainment.
		r = runJob(t, job, workload.Options{})
		require.NotNil(t, r.Steady)
		assert.Less(t, r.Runtime, r.Steady.AttainedAt+time.Second)
	})
	t.Run("latency window", func(t *testing.T) {
		job := ratedJob(t, "iops:5%", 2*time.Second, 20*time.Second)
		r := runJob(t, job, workload.Options{SteadyLatencyWindow: true})
		st := r.Steady
		require.NotNil(t, st)
		require.True(t, st.Attained, st.Last)
		l := st.Latency
		require.NotNil(t, l, "latency window (%d attempts): %s", st.LatencyAttempts, st.Last)
		t.Logf("attained at %v, latency window %v-%v (attempt %d), runtime %v", st.AttainedAt, l.Start, l.End, l.Attempt, r.Runtime)
		assert.True(t, st.Stopped)
		assert.Equal(t, "steady state attained and its latency window measured", st.StopReason)
		assert.Less(t, r.Runtime, 10*time.Second)
		assert.GreaterOrEqual(t, l.Start, st.AttainedAt)
		assert.InDelta(t, 2, (l.End - l.Start).Seconds(), 0.2, "one window of ss_dur")
		// The window's histogram holds exactly the I/Os of its seconds.
		var ios uint64
		for _, s := range r.Seconds[l.First : l.Last+1] {
			ios += s.IOs[workload.DirRead]
		}
		assert.Equal(t, ios, l.All.Count())
		assert.InDelta(t, 2000, float64(ios), 100, "two seconds at 1000 IOPS")
		sum := summary(t, r)
		assert.Contains(t, sum, "latency window")
		assert.Contains(t, sum, "p99.9=")
		out := checkFioRoundTrip(t, &workload.Result{Jobs: []*workload.JobResult{r}})
		var doc struct {
			Jobs []struct {
				Ext struct {
					Stopped bool `json:"stopped"`
					Events  []struct {
						Event string `json:"event"`
					} `json:"events"`
					LatencyWindow struct {
						Clat struct {
							N uint64 `json:"N"`
						} `json:"clat_ns"`
					} `json:"latency_window"`
				} `json:"stortest_steadystate"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(out, &doc))
		require.Len(t, doc.Jobs, 1)
		assert.True(t, doc.Jobs[0].Ext.Stopped)
		assert.Equal(t, ios, doc.Jobs[0].Ext.LatencyWindow.Clat.N)
		require.NotEmpty(t, doc.Jobs[0].Ext.Events)
		assert.Equal(t, "attained", doc.Jobs[0].Ext.Events[0].Event)
	})
}

// checkFioRoundTrip writes res as fio JSON and recomputes every job's
// steadystate object from its own data arrays, as `stortest steady fio`
// does: the recomputed criterion, deviation and slope print as we printed
// them. It returns the JSON.
func checkFioRoundTrip(t *testing.T, res *workload.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSONPlus, time.Unix(1700000000, 0)))
	out := buf.Bytes()
	// fio's key order: "steadystate" closes fio's members of the job.
	s := string(out)
	i, j, k := strings.Index(s, `"minf"`), strings.Index(s, `"steadystate": {`), strings.Index(s, `"stortest_steadystate"`)
	require.True(t, i >= 0 && j > i && k > j, "key order minf < steadystate < stortest_steadystate")
	fo, err := steady.ReadFio(bytes.NewReader(out), "ours")
	require.NoError(t, err)
	checks, err := steady.CheckFio(fo)
	require.NoError(t, err)
	require.Len(t, checks, len(res.Jobs))
	for n, c := range checks {
		st := res.Jobs[n].Steady
		assert.True(t, c.Matches, "recomputed %+v, printed %+v", c.Computed, c.Reported)
		assert.True(t, c.WindowFull)
		assert.Equal(t, st.Report.Fio.Criterion, c.Computed.Criterion)
		assert.Equal(t, st.Report.Fio.Attained, c.Computed.Attained)
		// The job options carry the criterion as given, so the recomputed
		// limit has full precision (the "ss" string is a float32).
		opts := fo.Jobs[n].Options
		assert.Equal(t, res.Jobs[n].Job.SS, opts["steadystate"])
		assert.Equal(t, workload.FormatTime(res.Jobs[n].Job.SSDur), opts["steadystate_duration"])
		assert.Equal(t, st.Criteria[0].Limit, c.Criterion.Limit)
	}
	return out
}

// A criterion that does not parse is refused before any I/O.
func TestRunRefusesBadSteadyState(t *testing.T) {
	job := ratedJob(t, "iops:fast", 2*time.Second, time.Second)
	_, err := Run(context.Background(), job, workload.Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, steady.ErrSyntax)
}

// Each clone of a job has its own detector and decides for itself, as fio
// judges each job without group_reporting.
func TestRunSteadyStatePerClone(t *testing.T) {
	job := ratedJob(t, "iops:5%", 2*time.Second, 20*time.Second)
	job.NumJobs = 2
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	require.Len(t, res.Jobs, 2)
	for _, r := range res.Jobs {
		require.NotNil(t, r.Steady, "clone %d", r.Clone)
		assert.True(t, r.Steady.Stopped, "clone %d: %s", r.Clone, r.Steady.Last)
		assert.Less(t, r.Runtime, 6*time.Second, "clone %d", r.Clone)
	}
	assert.NotSame(t, res.Jobs[0].Steady, res.Jobs[1].Steady)
	checkFioRoundTrip(t, res)
}

func ExampleSteadyConfig() {
	job := workload.Job{Name: "randread", SS: "iops_slope:0.3%,clat_p99:5%", SSDur: 30 * time.Second, SSRamp: 10 * time.Second}
	cfg, ok, err := SteadyConfig(job)
	fmt.Println(ok, err)
	fmt.Printf("criteria %s over %v after %v\n", cfg.Criteria, cfg.Window, cfg.Ramp)

	job.SSDur = 0 // fio's switch: no window, no detection
	_, ok, _ = SteadyConfig(job)
	fmt.Println(ok)
	// Output:
	// true <nil>
	// criteria iops_slope:0.3%, clat_p99:5% over 30s after 10s
	// false
}
