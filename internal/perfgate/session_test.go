package perfgate_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/workload"
)

// Rules are the gate's tolerances, stored in every baseline it records:
// the ratio may drop by 10% before it is a regression (a slowdown of
// 20 ns per I/O of the null engine's 100-150 ns is 13-20%), and
// bandwidth, which is the same ratio, is not compared twice.
const Rules = "read.iops=10%,read.bw=off"

// Round is one alternating round of a case: fio's run and stortest's,
// back to back, each as its JSON output says.
type Round struct {
	Fio      Measure `json:"fio"`
	Stortest Measure `json:"stortest"`
}

// Measure is one run's figures: its completed I/Os, their IOPS, and
// the CPU (user and system) its job thread used per I/O, in ns.
type Measure struct {
	IOs      uint64  `json:"ios"`
	IOPS     float64 `json:"iops"`
	CPUPerIO float64 `json:"cpu_ns_per_io"`
}

// Session is one gate session's rounds of one case, as kept in
// testdata/rounds/<case>.jsonl, one line each.
type Session struct {
	Session string    `json:"session"`
	Created time.Time `json:"created"`
	Kernel  string    `json:"kernel"`
	Fio     string    `json:"fio"` // fio's version
	Rounds  []Round   `json:"rounds"`
}

// ratio is the round's gated quantity: fio's CPU per I/O over
// stortest's, that is stortest's I/Os per CPU-second over fio's (higher
// is better, as IOPS).
func (r Round) ratio() float64 { return r.Fio.CPUPerIO / r.Stortest.CPUPerIO }

// slower returns the round as if stortest had spent ns more CPU per
// I/O.
func (r Round) slower(ns float64) Round {
	r.Stortest.CPUPerIO += ns
	r.Stortest.IOPS = 1e9 / (1e9/r.Stortest.IOPS + ns)
	return r
}

// low is the gate's estimator of a tool's CPU per I/O in a session: the
// mean of the lowest quarter of its rounds (3 of 12). Load only adds to
// the CPU a run spends per I/O (a burst of other work evicting its
// caches, CPU time stolen from the VM and charged to whoever ran): on a
// loaded 2-CPU VM a tool's rounds spread by a factor of two, and the
// ratio of the tools' medians by 10% from session to session, of their
// lowest quarters by 3%; that is what a tool costs when the host lets
// it.
func low(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	k := max(1, int(math.Round(float64(len(s))/4)))
	var sum float64
	for _, v := range s[:k] {
		sum += v
	}
	return sum / float64(k)
}

// estimate is the session's gated quantity: fio's CPU per I/O over
// stortest's, each the low quantile of its rounds.
func estimate(rounds []Round) float64 {
	f := make([]float64, len(rounds))
	st := make([]float64, len(rounds))
	for i, r := range rounds {
		f[i], st[i] = r.Fio.CPUPerIO, r.Stortest.CPUPerIO
	}
	return low(f) / low(st)
}

// bootstrapSE is the standard error of estimate over the rounds, by a
// bootstrap of the rounds (resampled as pairs, which keeps what a round
// shared), seeded by the rounds so that a session always gives the same.
func bootstrapSE(rounds []Round) float64 {
	h := fnv.New64a()
	for _, r := range rounds {
		fmt.Fprintf(h, "%g %g;", r.Fio.CPUPerIO, r.Stortest.CPUPerIO)
	}
	rng := rand.New(rand.NewPCG(h.Sum64(), 25))
	const n = 2000
	est := make([]float64, n)
	re := make([]Round, len(rounds))
	for b := range est {
		for i := range re {
			re[i] = rounds[rng.IntN(len(rounds))]
		}
		est[b] = math.Log(estimate(re))
	}
	var mean, ss float64
	for _, e := range est {
		mean += e
	}
	mean /= n
	for _, e := range est {
		ss += (e - mean) * (e - mean)
	}
	return math.Sqrt(ss/(n-1)) * estimate(rounds) // log scale to the ratio's
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Case is one engine's job, run alike by fio and stortest.
type Case struct {
	Name string
	Job  workload.Job // what the baseline records of the job
	Args []string     // the job's command line (--name, --runtime and target aside)
	// Target says the job needs "shm" (a file in /dev/shm), "loop" (a
	// loop device over it), or nothing.
	Target string
}

// Cases are the gated engines: 4 KiB random reads, the async engines at
// depth 32 on a loop device over /dev/shm (no disk: the CPU, so each
// tool's own cost, sets the pace), psync on a file in /dev/shm.
var Cases = []Case{
	{Name: "null-4k-randread", Job: job("null", 1, false),
		Args: []string{"--ioengine=null", "--rw=randread", "--bs=4k", "--size=10g"}},
	{Name: "psync-4k-randread-shm", Job: job("psync", 1, false), Target: "shm",
		Args: []string{"--ioengine=psync", "--rw=randread", "--bs=4k"}},
	{Name: "libaio-4k-randread-qd32-shmloop", Job: job("libaio", 32, true), Target: "loop",
		Args: []string{"--ioengine=libaio", "--rw=randread", "--bs=4k", "--iodepth=32", "--direct=1"}},
	{Name: "io_uring-4k-randread-qd32-shmloop", Job: job("io_uring", 32, true), Target: "loop",
		Args: []string{"--ioengine=io_uring", "--rw=randread", "--bs=4k", "--iodepth=32", "--direct=1"}},
}

func job(engine string, depth int, direct bool) workload.Job {
	return workload.Job{Name: engine, Engine: engine, RW: workload.RandRead, BlockSize: 4096, IODepth: depth, Direct: direct}
}

// Baseline is the session's baseline of case c: one run whose read IOPS
// and bandwidth are the session's estimate (fio's CPU per I/O over
// stortest's, each the low quantile of the rounds). Its sample
// moments carry the estimate's own noise to regress: N the rounds, the
// mean the estimate, the standard deviation the bootstrap's standard
// error of the estimate times sqrt(N) (so that regress's Welch interval
// on them is the bootstrap's), and the range the rounds' ratios.
func (c Case) Baseline(s Session) (*baselines.Baseline, error) {
	if len(s.Rounds) < 3 {
		return nil, fmt.Errorf("%s: session %s: %d rounds: too few to compare", c.Name, s.Session, len(s.Rounds))
	}
	var ios uint64
	var runtime time.Duration
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range s.Rounds {
		ios += r.Stortest.IOs
		runtime += time.Duration(float64(r.Stortest.IOs) / r.Stortest.IOPS * 1e9)
		lo, hi = math.Min(lo, r.ratio()), math.Max(hi, r.ratio())
	}
	est := estimate(s.Rounds)
	n := len(s.Rounds)
	m := baselines.Moments{N: n, Min: math.Min(lo, est), Max: math.Max(hi, est), Mean: est,
		Stddev: bootstrapSE(s.Rounds) * math.Sqrt(float64(n))}
	bw := m
	bw.Min, bw.Max, bw.Mean, bw.Stddev = m.Min*4096, m.Max*4096, m.Mean*4096, m.Stddev*4096
	return &baselines.Baseline{
		Schema:  baselines.SchemaVersion,
		Name:    c.Name,
		Created: s.Created.UTC().Truncate(time.Second),
		Runtime: runtime,
		Clones:  1,
		Session: s.Session,
		Job:     c.Job,
		Fingerprint: baselines.Fingerprint{
			Engine:  c.Job.Engine,
			Kernel:  s.Kernel,
			Version: s.Fio, // the reference the ratio is taken against
		},
		Dirs: []*baselines.Dir{{
			Name: "read", IOs: ios, Bytes: ios * 4096,
			IOPS: est, BW: est * 4096,
			IOPSSamples: m, BWSamples: bw,
		}},
		Tolerances: Rules,
	}, nil
}

func moments(x []float64) baselines.Moments {
	m := baselines.Moments{N: len(x), Min: slices.Min(x), Max: slices.Max(x)}
	for _, v := range x {
		m.Mean += v
	}
	m.Mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - m.Mean) * (v - m.Mean)
	}
	if len(x) > 1 {
		m.Stddev = math.Sqrt(ss / float64(len(x)-1))
	}
	return m
}

// grow returns the baseline of sessions, grown one at a time as
// recording does (baselines.Grow, the newest DefaultKeep kept).
func (c Case) grow(sessions []Session) (*baselines.Baseline, error) {
	var b *baselines.Baseline
	for _, s := range sessions {
		cur, err := c.Baseline(s)
		if err != nil {
			return nil, err
		}
		if b == nil {
			b = cur
			continue
		}
		if b, _, err = baselines.Grow(b, cur, baselines.DefaultKeep); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Confidence is the level of the gate's intervals: 90%, where
// regress's default is 95%. A regression must also be beyond the 10%
// tolerance, which an unchanged session (3% from session to session)
// is not; the narrower interval lets 20 ns more per I/O of the null
// engine (14%) stand out of a session's noise.
const Confidence = 0.90

// Compare judges the current session's baseline cur against base with
// regress, under the rules base was recorded with, at Confidence.
func Compare(base, cur *baselines.Baseline) (regress.Report, error) {
	cfg := regress.DefaultConfig()
	cfg.Confidence = Confidence
	rules, err := regress.ParseRules(base.Tolerances)
	if err != nil {
		return regress.Report{}, fmt.Errorf("%s: tolerances: %w", base.Name, err)
	}
	cfg.Rules = append(cfg.Rules, rules...)
	return regress.Compare(base, cur, cfg), nil
}

// readSessions reads a rounds file (one Session a line); a missing file
// is no sessions.
func readSessions(path string) ([]Session, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Session
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var s Session
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(s.Rounds) == 0 {
			return nil, fmt.Errorf("%s:%d: rounds: none", path, line)
		}
		for i, r := range s.Rounds {
			for _, m := range []Measure{r.Fio, r.Stortest} {
				if !(m.CPUPerIO > 0) || !(m.IOPS > 0) || m.IOs == 0 {
					return nil, fmt.Errorf("%s:%d: rounds[%d]: a run without I/O or CPU: %+v", path, line, i, m)
				}
			}
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// appendSession adds s to the rounds file at path.
func appendSession(path string, s Session) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
