// Command gen writes synthetic fio-format histogram logs for benchmarks:
// a fleet of hosts running mixed random I/O, one row per direction per
// interval, with plausible latency distributions (log-normal bodies with
// a slow tail), job-to-job variation, and a node failure part way
// through: one host stalls for 30 s while the others see a heavier tail.
//
//	go run ./latency/histlog/internal/gen -out DIR [-logs 64] [-hosts 8] [-seconds 3600]
//
// Logs are DIR/<host>/h_clat_hist.<job>.log. The output depends only on
// the flags (the random source is seeded per log).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

type config struct {
	out        string
	logs       int
	hosts      int
	seconds    int
	intervalMs int
	groups     int
	readPct    float64
	iops       float64 // per job, both directions
	seed       uint64
}

func main() {
	var c config
	flag.StringVar(&c.out, "out", "", "output directory (required)")
	flag.IntVar(&c.logs, "logs", 64, "number of logs (jobs), spread over the hosts")
	flag.IntVar(&c.hosts, "hosts", 8, "number of hosts (sub-directories)")
	flag.IntVar(&c.seconds, "seconds", 3600, "length of each log")
	flag.IntVar(&c.intervalMs, "interval", 1000, "log_hist_msec")
	flag.IntVar(&c.groups, "groups", latency.FioGroups, "histogram groups (29: fio's 1856 buckets)")
	flag.Float64Var(&c.readPct, "read-pct", 70, "share of reads (rwmixread)")
	flag.Float64Var(&c.iops, "iops", 4000, "completions per second per job")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.Parse()
	if c.out == "" || c.logs < 1 || c.hosts < 1 || c.seconds < 1 || c.intervalMs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// shapes are latency distributions as bucket probabilities, for medians
// on a logarithmic grid (shapeStep apart) from shapeMin ns.
type shapes struct {
	first []int       // first bucket with probability
	p     [][]float64 // probabilities from first
}

const (
	shapeMin  = 5e3 // ns
	shapeStep = 1.05
	numShapes = 200 // up to 5 µs * 1.05^199 = 82 ms
)

func newShapes(l latency.Layout) *shapes {
	s := &shapes{}
	for i := range numShapes {
		median := shapeMin * math.Pow(shapeStep, float64(i))
		cdf := func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			// 97% body (sigma 0.35), 3% slow tail at 6x (sigma 0.9).
			body := 0.5 * math.Erfc(-(math.Log(x/median))/(0.35*math.Sqrt2))
			tail := 0.5 * math.Erfc(-(math.Log(x/(6*median)))/(0.9*math.Sqrt2))
			return 0.97*body + 0.03*tail
		}
		var ps []float64
		first := -1
		for b := range l.Buckets() {
			lo, hi := l.Bounds(b)
			p := cdf(float64(hi)) - cdf(float64(lo))
			if p < 1e-7 {
				if first >= 0 && float64(lo) > median {
					break
				}
				continue
			}
			if first < 0 {
				first = b
			}
			for len(ps) < b-first {
				ps = append(ps, 0)
			}
			ps = append(ps, p)
		}
		s.first = append(s.first, first)
		s.p = append(s.p, ps)
	}
	return s
}

// shape returns the index of the shape closest to median ns.
func shapeFor(median float64) int {
	i := int(math.Round(math.Log(median/shapeMin) / math.Log(shapeStep)))
	return min(max(i, 0), numShapes-1)
}

func run(c config) error {
	l, err := latency.NewLayout(c.groups)
	if err != nil {
		return err
	}
	sh := newShapes(l)
	errs := make(chan error, c.logs)
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for j := range c.logs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs <- writeLog(c, l, sh, j)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func writeLog(c config, l latency.Layout, sh *shapes, job int) error {
	host := job % c.hosts
	dir := filepath.Join(c.out, fmt.Sprintf("node%02d", host))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, histlog.FileName("h", job/c.hosts+1)))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := histlog.NewWriter(bw, 0)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(c.seed, uint64(job)))
	// Per job: device speed differs by a few tens of percent.
	base := [2]float64{90e3 * (0.8 + 0.4*rng.Float64()), 35e3 * (0.8 + 0.4*rng.Float64())}
	share := [2]float64{c.readPct / 100, 1 - c.readPct/100}
	h := latency.New(l)
	failStart, failEnd := c.seconds*2/5, c.seconds*2/5+30
	drift := 1.0
	for k := 1; k <= c.seconds; k++ {
		// fio writes a row once an interval has passed, at the next
		// completion: a few ms late, reads and writes apart.
		t0 := uint64(k*c.intervalMs + 1 + rng.IntN(20))
		t1 := t0 + uint64(rng.IntN(3))
		drift = min(max(drift*math.Exp(0.02*rng.NormFloat64()), 0.7), 1.4)
		slow, rate := 1.0, 1.0
		if k > failStart && k <= failEnd {
			if host == 3 {
				slow, rate = 40, 0.05 // the failed node: a trickle of very slow I/O
			} else {
				slow, rate = 1.8, 1.2 // the others take its load, with a heavier tail
			}
		}
		order := [2]int{0, 1}
		times := [2]uint64{t0, t1}
		if rng.IntN(2) == 0 {
			order = [2]int{1, 0}
		}
		for _, d := range order {
			n := c.iops * share[d] * rate * (0.95 + 0.1*rng.Float64())
			s := shapeFor(base[d] * slow * drift)
			h.Reset()
			for i, p := range sh.p[s] {
				if cnt := uint64(n*p + rng.Float64()); cnt > 0 {
					b := sh.first[s] + i
					h.AddBin(l.Value(b), cnt)
				}
			}
			if err := w.WriteInterval(times[d], histlog.Direction(d), 4096, h); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
