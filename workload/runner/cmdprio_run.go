package runner

import (
	"cmp"
	"slices"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// Priorities of single I/Os at run time: the picker and the per-priority
// statistics.

// prioPicker draws each I/O's priority, on the job's goroutine, without
// allocating.
type prioPicker struct {
	rng     uint64 // xorshift64 state
	pct     [2]int
	prio    [2]uint16 // cmdprio_percentage's priority per direction
	split   [2][]workload.PrioSplit
	classes [2]int
	levels  [2]int
}

func newPrioPicker(c *workload.CmdPrio, seed uint64) *prioPicker {
	p := &prioPicker{rng: seed | 1, pct: c.Percentage, split: c.BSSplit}
	for d := range 2 {
		p.classes[d] = max(c.Class[d], 1) // fio's default: real time
		p.levels[d] = c.Level[d]
		p.prio[d] = workload.IOPrio(p.classes[d], p.levels[d])
	}
	return p
}

// pick returns the ioprio of an I/O of direction d and size bs (0: none).
func (p *prioPicker) pick(d workload.Dir, bs int64) uint16 {
	if d > workload.DirWrite {
		return 0
	}
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 7
	p.rng ^= p.rng << 17
	r := int(p.rng % 100)
	if len(p.split[d]) == 0 {
		if r < p.pct[d] {
			return p.prio[d]
		}
		return 0
	}
	cum := 0
	for _, s := range p.split[d] {
		if s.Size != bs {
			continue
		}
		cum += s.Percent
		if r < cum {
			class, level := s.Class, s.Level
			if class < 0 {
				class = p.classes[d]
			}
			if level < 0 {
				level = p.levels[d]
			}
			return workload.IOPrio(class, level)
		}
	}
	return 0
}

// prioSlots returns a direction's empty per-priority stats in fio 3.33's
// order (its clat_prio array, which its outputs follow): the job's own
// priority (own: prioclass and prio, else 0) first, then each priority
// the cmdprio options can give, once, cmdprio_bssplit's entries taken by
// block size (fio sorts them so) and in their order within one size.
func prioSlots(c *workload.CmdPrio, d workload.Dir, own uint16, layout latency.Layout) []workload.PrioStats {
	ps := []uint16{own}
	add := func(p uint16) {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	if d <= workload.DirWrite {
		p := newPrioPicker(c, 1)
		if p.pct[d] > 0 {
			add(p.prio[d])
		}
		split := slices.Clone(c.BSSplit[d])
		slices.SortStableFunc(split, func(a, b workload.PrioSplit) int { return cmp.Compare(a.Size, b.Size) })
		for _, s := range split {
			class, level := s.Class, s.Level
			if class < 0 {
				class = p.classes[d]
			}
			if level < 0 {
				level = p.levels[d]
			}
			if s.Percent > 0 {
				add(workload.IOPrio(class, level))
			}
		}
	}
	out := make([]workload.PrioStats, len(ps))
	for i, p := range ps {
		out[i].Class, out[i].Level = workload.PrioOf(p)
		out[i].Clat, out[i].Lat = latency.New(layout), latency.New(layout)
	}
	return out
}

// addPrio records one I/O's latencies under its priority p.
func addPrio(slots []workload.PrioStats, p uint16, clat, lat uint64) {
	class, level := workload.PrioOf(p)
	for i := range slots {
		if slots[i].Class == class && slots[i].Level == level {
			slots[i].Clat.Add(clat)
			slots[i].Lat.Add(lat)
			return
		}
	}
}
