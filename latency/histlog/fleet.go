package histlog

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// Group is the logs of one host (or any unit of a fleet): every job's
// histogram log it left.
type Group struct {
	Label  string
	Inputs []Input
}

// WholeRun is the quantum of a whole-run summary: the longest Merge takes,
// so that every log, even of unix-epoch times, falls in one quantum.
const WholeRun = 1e9 * time.Second

// DirSummary is one direction's figures over a whole run: completions,
// min, percentiles (Config.Percentiles' order) and max, in ns, NaN
// without completions.
type DirSummary struct {
	Dir         Direction
	Samples     float64
	Min, Max    float64
	Percentiles []float64
}

// GroupSummary is one host's figures over its whole run.
type GroupSummary struct {
	Label string
	Logs  int
	Dirs  []DirSummary // in Config.Directions' order
}

// Dir returns the summary of direction d, if reported.
func (g *GroupSummary) Dir(d Direction) (DirSummary, bool) {
	for _, s := range g.Dirs {
		if s.Dir == d {
			return s, true
		}
	}
	return DirSummary{}, false
}

// FleetSummary is what a fleet's logs say over the whole run: each host's
// figures and the fleet's, the fleet's percentiles being those of the
// histograms of every host summed (Merge's arithmetic), never an average
// of the hosts' percentiles.
type FleetSummary struct {
	Percentiles []float64
	Hosts       []GroupSummary
	Fleet       GroupSummary
}

// Fleet summarises the logs of each group, and of all groups together,
// over the whole run (one quantum of WholeRun): per direction of
// cfg.Directions the completions, min, percentiles and max of the summed
// histograms. cfg.Quantum and cfg.ByInput are ignored.
func Fleet(ctx context.Context, groups []Group, cfg Config) (*FleetSummary, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("histlog: fleet: no hosts")
	}
	cfg.Quantum, cfg.ByInput = WholeRun, false
	var all []Input
	out := &FleetSummary{}
	for _, g := range groups {
		s, err := wholeRun(ctx, g.Inputs, cfg)
		if err != nil {
			return nil, fmt.Errorf("histlog: host %s: %w", g.Label, err)
		}
		s.Label = g.Label
		out.Hosts = append(out.Hosts, s)
		all = append(all, g.Inputs...)
	}
	fleet, err := wholeRun(ctx, all, cfg)
	if err != nil {
		return nil, err
	}
	fleet.Label = "fleet"
	out.Fleet = fleet
	out.Percentiles = cfg.Percentiles
	if out.Percentiles == nil {
		out.Percentiles = DefaultPercentiles
	}
	return out, nil
}

// wholeRun merges inputs into one quantum.
func wholeRun(ctx context.Context, inputs []Input, cfg Config) (GroupSummary, error) {
	var sink wholeSink
	sum, err := Merge(ctx, inputs, cfg, &sink)
	if err != nil {
		return GroupSummary{}, err
	}
	if sum.Quanta != 1 {
		return GroupSummary{}, fmt.Errorf("histlog: the logs span %d quanta of %v: not one run", sum.Quanta, WholeRun)
	}
	return GroupSummary{Logs: len(inputs), Dirs: sink.dirs}, nil
}

// wholeSink keeps the rows of a merge of one quantum.
type wholeSink struct{ dirs []DirSummary }

func (*wholeSink) Begin(*Summary) error { return nil }
func (*wholeSink) End(*Summary) error   { return nil }

func (w *wholeSink) Row(r *Row) error {
	w.dirs = append(w.dirs, DirSummary{Dir: r.Dir, Samples: r.Samples, Min: r.Min, Max: r.Max,
		Percentiles: slices.Clone(r.Percentiles)})
	return nil
}

// Slowest returns the host whose percentile p (an index into
// Percentiles) of direction d is the highest, and that value's ratio to
// the median host's (the lower middle of an even count): the host to
// look at first. ok is false with fewer than two hosts with completions.
func (f *FleetSummary) Slowest(d Direction, p int) (host GroupSummary, ratio float64, ok bool) {
	type hv struct {
		i int
		v float64
	}
	var vs []hv
	for i := range f.Hosts {
		if s, found := f.Hosts[i].Dir(d); found && s.Samples > 0 && p < len(s.Percentiles) && !math.IsNaN(s.Percentiles[p]) {
			vs = append(vs, hv{i, s.Percentiles[p]})
		}
	}
	if len(vs) < 2 {
		return GroupSummary{}, 0, false
	}
	slices.SortStableFunc(vs, func(a, b hv) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	med := vs[(len(vs)-1)/2].v
	top := vs[len(vs)-1]
	if med <= 0 {
		return f.Hosts[top.i], math.Inf(1), true
	}
	return f.Hosts[top.i], top.v / med, true
}
