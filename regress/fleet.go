package regress

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"stortest.dev/baselines"
	"stortest.dev/latency"
)

// HostRun is one host's run of a job in a fleet.
type HostRun struct {
	Host     string
	Baseline *baselines.Baseline
}

// FleetReport is one job run on every host of a fleet at once.
type FleetReport struct {
	Job string
	// Hosts compares each host with the others (Report.Name is the host),
	// in the order given.
	Hosts []Report
	// Dirs are the fleet's figures per direction.
	Dirs []FleetDir
}

// FleetDir is a direction's figures over the whole fleet: throughput
// summed over the hosts (they ran at once), clat percentiles of the
// hosts' histograms merged (ns; 0 when a host has no histogram, as fio
// JSON without json+ bins), never averaged.
type FleetDir struct {
	Name                       string
	Hosts                      int // hosts with I/O in this direction
	IOPS, BW                   float64
	IOs                        uint64
	ClatP50, ClatP99, ClatP999 uint64
}

// Slow returns the hosts whose comparison with the others regressed, the
// worst first: by the largest change (as a factor, either way) among
// their regressions.
func (f FleetReport) Slow() []Report {
	var out []Report
	for _, r := range f.Hosts {
		if r.Verdict == Regression {
			out = append(out, r)
		}
	}
	severity := func(r Report) float64 {
		worst := 0.0
		for _, x := range r.Regressions() {
			if x.Ratio > 0 && finite(x.Ratio) {
				worst = max(worst, math.Abs(math.Log(x.Ratio)))
			} else {
				worst = math.Inf(1)
			}
		}
		return worst
	}
	slices.SortStableFunc(out, func(a, b Report) int { return cmp.Compare(severity(b), severity(a)) })
	return out
}

// ErrFleet is matched by CompareFleet's errors.
var ErrFleet = errors.New("regress: fleet")

// CompareFleet compares each host's run of one job with the rest of the
// fleet: the other hosts' runs pooled as a baseline of several runs
// (baselines.AddRun: the first other host's full data, every host's
// summary), so that the spread between hosts is the run-to-run spread
// the verdict allows for, and a host that stands out from it is a
// regression (or an improvement). It needs two hosts at least, all
// running the same workload.
func CompareFleet(runs []HostRun, cfg Config) (FleetReport, error) {
	if len(runs) < 2 {
		return FleetReport{}, fmt.Errorf("%w: %d host(s): a fleet comparison needs two at least", ErrFleet, len(runs))
	}
	out := FleetReport{Job: runs[0].Baseline.Name}
	// A slow host in the pool would make every other host's reference
	// slow and noisy: hosts found slow are left out of the others' pools
	// and everything compared again, until the slow set holds (a host
	// may be judged only against hosts not found slow, or all others if
	// every other one is).
	slow := map[int]bool{}
	for range len(runs) {
		out.Hosts = out.Hosts[:0]
		for i, h := range runs {
			r, err := compareWithPool(runs, i, slow, cfg)
			if err != nil {
				return FleetReport{}, err
			}
			r.Name = h.Host
			out.Hosts = append(out.Hosts, r)
		}
		next := map[int]bool{}
		for i, r := range out.Hosts {
			if r.Verdict == Regression {
				next[i] = true
			}
		}
		if len(next) == len(slow) || 2*len(next) > len(runs) {
			break // stable; or most hosts slow, when "the others" means no more than that
		}
		slow = next
	}
	dirs, err := fleetDirs(runs)
	if err != nil {
		return FleetReport{}, err
	}
	out.Dirs = dirs
	return out, nil
}

// compareWithPool compares host i with the other hosts not in slow (all
// the others if every one is) pooled as one baseline of several runs.
func compareWithPool(runs []HostRun, i int, slow map[int]bool, cfg Config) (Report, error) {
	h := runs[i]
	var pool []HostRun
	for j, o := range runs {
		if j != i && !slow[j] {
			pool = append(pool, o)
		}
	}
	if len(pool) == 0 {
		pool = append(append(pool, runs[:i]...), runs[i+1:]...)
	}
	var pooled *baselines.Baseline
	for _, o := range pool {
		if pooled == nil {
			b := *o.Baseline
			pooled = &b
			continue
		}
		if err := pooled.AddRun(o.Baseline); err != nil {
			return Report{}, fmt.Errorf("%w: host %s: %w", ErrFleet, o.Host, err)
		}
	}
	if ch := baselines.DiffJobs(pooled.Job, h.Baseline.Job); len(ch) > 0 || pooled.Name != h.Baseline.Name {
		return Report{}, fmt.Errorf("%w: host %s ran another workload than the others (%s)", ErrFleet, h.Host, h.Baseline.Name)
	}
	return Compare(pooled, h.Baseline, cfg), nil
}

// fleetDirs sums the hosts' throughput and merges their clat histograms.
func fleetDirs(runs []HostRun) ([]FleetDir, error) {
	var out []FleetDir
	for _, name := range baselines.DirNames {
		fd := FleetDir{Name: name}
		var merged *latency.Histogram
		complete := true
		for _, h := range runs {
			d := h.Baseline.Dir(name)
			if d == nil {
				continue
			}
			fd.Hosts++
			fd.IOPS += d.IOPS
			fd.BW += d.BW
			fd.IOs += d.IOs
			if d.Clat == nil || d.Clat.Hist == nil {
				complete = false
				continue
			}
			hist, err := d.Clat.Hist.Histogram()
			if err != nil {
				return nil, fmt.Errorf("%w: host %s: %w", ErrFleet, h.Host, err)
			}
			if merged == nil {
				merged = hist
			} else if err := merged.Merge(hist); err != nil {
				return nil, fmt.Errorf("%w: host %s: %s clat: %w", ErrFleet, h.Host, name, err)
			}
		}
		if fd.Hosts == 0 {
			continue
		}
		if complete && merged != nil && merged.Count() > 0 {
			fd.ClatP50, fd.ClatP99, fd.ClatP999 = merged.Percentile(50), merged.Percentile(99), merged.Percentile(99.9)
		}
		out = append(out, fd)
	}
	return out, nil
}
