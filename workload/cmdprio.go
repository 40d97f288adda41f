package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"stortest.dev/latency"
)

// CmdPrio are fio's per-I/O priority options of the libaio and io_uring
// engines: cmdprio_percentage of the I/Os get priority class
// cmdprio_class (default 1, real time) at level cmdprio (default 0), or,
// with cmdprio_bssplit, a share of the I/Os of each block size gets its
// own class and level. Each has a read and a write value ("r[,w]"). The
// rest keep the thread's priority. Results keep per-priority latencies
// (JobResult.Prios; fio's "prios").
type CmdPrio struct {
	Percentage [2]int         `json:"percentage,omitzero"` // 0-100, read and write
	Class      [2]int         `json:"class,omitzero"`      // 1 real time, 2 best effort, 3 idle; 0 means 1
	Level      [2]int         `json:"level,omitzero"`      // 0-7
	BSSplit    [2][]PrioSplit `json:"bssplit,omitempty"`   // read and write
}

// PrioSplit is one cmdprio_bssplit entry: Percent of the I/Os of Size get
// Class and Level (-1: cmdprio_class's, cmdprio's).
type PrioSplit struct {
	Size    int64 `json:"size"`
	Percent int   `json:"percent"`
	Class   int   `json:"class"`
	Level   int   `json:"level"`
}

// On reports whether any I/O gets a priority.
func (c *CmdPrio) On() bool {
	return c.Percentage != [2]int{} || len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0
}

func (c *CmdPrio) isZero() bool {
	return !c.On() && c.Class == [2]int{} && c.Level == [2]int{}
}

// ioprio makes the kernel's ioprio value.
func ioprio(class, level int) uint16 { return uint16(class<<13 | level) }

// prioOf returns the class and level of ioprio value p.
func prioOf(p uint16) (class, level int) { return int(p >> 13), int(p & 0x1fff) }

// parsePair parses fio's "r[,w]": one value for both directions, or two.
func parsePair(v string, lo, hi int) ([2]int, error) {
	parts := strings.Split(v, ",")
	if len(parts) > 2 {
		return [2]int{}, fmt.Errorf("%q has more than 2 values (read,write)", v)
	}
	var out [2]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < lo || n > hi {
			return out, fmt.Errorf("%q is not a number in [%d, %d]", p, lo, hi)
		}
		out[i] = n
	}
	if len(parts) == 1 {
		out[1] = out[0]
	}
	return out, nil
}

// parsePrioSplit parses cmdprio_bssplit: "bs/percent[/class[/level]]"
// entries joined by ':', a read list and a write list apart by ','.
func parsePrioSplit(v string) ([2][]PrioSplit, error) {
	var out [2][]PrioSplit
	dirs := strings.Split(v, ",")
	if len(dirs) > 2 {
		return out, fmt.Errorf("%q has more than 2 lists (read,write)", v)
	}
	for d, list := range dirs {
		for _, e := range strings.Split(list, ":") {
			f := strings.Split(strings.TrimSpace(e), "/")
			if len(f) < 2 || len(f) > 4 {
				return out, fmt.Errorf("%q is not bs/percent[/class[/level]]", e)
			}
			bs, err := parseBlockSize(f[0])
			if err != nil {
				return out, err
			}
			s := PrioSplit{Size: bs, Class: -1, Level: -1}
			bounds := [][2]int{{0, 100}, {1, 3}, {0, 7}}
			dst := []*int{&s.Percent, &s.Class, &s.Level}
			for i, x := range f[1:] {
				n, err := strconv.Atoi(x)
				if err != nil || n < bounds[i][0] || n > bounds[i][1] {
					return out, fmt.Errorf("%q: %q is not in [%d, %d]", e, x, bounds[i][0], bounds[i][1])
				}
				*dst[i] = n
			}
			out[d] = append(out[d], s)
		}
	}
	if len(dirs) == 1 {
		out[1] = slices.Clone(out[0])
	}
	return out, nil
}

// cmdprioString is the job-file text of the cmdprio options.
func (c *CmdPrio) String() string {
	if c.isZero() {
		return ""
	}
	var b strings.Builder
	pair := func(k string, v [2]int) {
		if v == [2]int{} {
			return
		}
		s := strconv.Itoa(v[0])
		if v[1] != v[0] {
			s += "," + strconv.Itoa(v[1])
		}
		b.WriteString(k + "=" + s + "\n")
	}
	pair("cmdprio_percentage", c.Percentage)
	pair("cmdprio_class", c.Class)
	pair("cmdprio", c.Level)
	if len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0 {
		var lists [2]string
		for d := range 2 {
			var e []string
			for _, s := range c.BSSplit[d] {
				x := FormatSize(s.Size) + "/" + strconv.Itoa(s.Percent)
				if s.Class >= 0 {
					x += "/" + strconv.Itoa(s.Class)
					if s.Level >= 0 {
						x += "/" + strconv.Itoa(s.Level)
					}
				}
				e = append(e, x)
			}
			lists[d] = strings.Join(e, ":")
		}
		v := lists[0]
		if lists[1] != lists[0] {
			v += "," + lists[1]
		}
		b.WriteString("cmdprio_bssplit=" + v + "\n")
	}
	return b.String()
}

// validate returns the option at fault and why, or "".
func (c *CmdPrio) validate(engine string) (option, reason string) {
	if c.isZero() {
		return "", ""
	}
	if engine != "libaio" && engine != "io_uring" {
		return "cmdprio_percentage", "ioengine=" + engine + " does not take the cmdprio options (only libaio, io_uring)"
	}
	for d := range 2 {
		if p := c.Percentage[d]; p < 0 || p > 100 {
			return "cmdprio_percentage", fmt.Sprintf("%d is not a percentage", p)
		}
		if k := c.Class[d]; k < 0 || k > 3 {
			return "cmdprio_class", fmt.Sprintf("class %d is outside [1, 3]", k)
		}
		if l := c.Level[d]; l < 0 || l > 7 {
			return "cmdprio", fmt.Sprintf("level %d is outside [0, 7]", l)
		}
		sums := map[int64]int{}
		for _, s := range c.BSSplit[d] {
			sums[s.Size] += s.Percent
			if sums[s.Size] > 100 {
				return "cmdprio_bssplit", fmt.Sprintf("percentages for %s add up to more than 100", FormatSize(s.Size))
			}
		}
	}
	if c.Percentage != [2]int{} && (len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0) {
		return "cmdprio_bssplit", "cmdprio_percentage and cmdprio_bssplit are mutually exclusive (as in fio)"
	}
	return "", ""
}

// prioPicker draws each I/O's priority, on the job's goroutine, without
// allocating.
type prioPicker struct {
	rng     uint64 // xorshift64 state
	pct     [2]int
	prio    [2]uint16 // cmdprio_percentage's priority per direction
	split   [2][]PrioSplit
	classes [2]int
	levels  [2]int
}

func newPrioPicker(c *CmdPrio, seed uint64) *prioPicker {
	p := &prioPicker{rng: seed | 1, pct: c.Percentage, split: c.BSSplit}
	for d := range 2 {
		p.classes[d] = max(c.Class[d], 1) // fio's default: real time
		p.levels[d] = c.Level[d]
		p.prio[d] = ioprio(p.classes[d], p.levels[d])
	}
	return p
}

// pick returns the ioprio of an I/O of direction d and size bs (0: none).
func (p *prioPicker) pick(d Dir, bs int64) uint16 {
	if d > DirWrite {
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
			return ioprio(class, level)
		}
	}
	return 0
}

// PrioStats are one priority's latencies in one direction.
type PrioStats struct {
	Class, Level int
	Clat, Lat    *latency.Histogram
}

// prioSlots returns a direction's empty per-priority stats: the thread's
// own priority first, then every priority the job's options can give,
// each once, in ioprio order.
func prioSlots(c *CmdPrio, d Dir, layout latency.Layout) []PrioStats {
	ps := []uint16{0}
	if d <= DirWrite {
		p := newPrioPicker(c, 1)
		if p.pct[d] > 0 {
			ps = append(ps, p.prio[d])
		}
		for _, s := range c.BSSplit[d] {
			class, level := s.Class, s.Level
			if class < 0 {
				class = p.classes[d]
			}
			if level < 0 {
				level = p.levels[d]
			}
			if s.Percent > 0 {
				ps = append(ps, ioprio(class, level))
			}
		}
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := make([]PrioStats, len(ps))
	for i, p := range ps {
		out[i].Class, out[i].Level = prioOf(p)
		out[i].Clat, out[i].Lat = latency.New(layout), latency.New(layout)
	}
	return out
}

// addPrio records one I/O's latencies under its priority p.
func addPrio(slots []PrioStats, p uint16, clat, lat uint64) {
	class, level := prioOf(p)
	for i := range slots {
		if slots[i].Class == class && slots[i].Level == level {
			slots[i].Clat.Add(clat)
			slots[i].Lat.Add(lat)
			return
		}
	}
}

// mergePrios adds o's per-priority stats to s's, matching priorities.
func mergePrios(s, o []PrioStats) []PrioStats {
	for _, x := range o {
		i := slices.IndexFunc(s, func(y PrioStats) bool { return y.Class == x.Class && y.Level == x.Level })
		if i < 0 {
			s = append(s, PrioStats{Class: x.Class, Level: x.Level, Clat: x.Clat.Clone(), Lat: x.Lat.Clone()})
			continue
		}
		_ = s[i].Clat.Merge(x.Clat)
		_ = s[i].Lat.Merge(x.Lat)
	}
	slices.SortFunc(s, func(a, b PrioStats) int { return int(ioprio(a.Class, a.Level)) - int(ioprio(b.Class, b.Level)) })
	return s
}

func clonePrios(s []PrioStats) []PrioStats {
	out := make([]PrioStats, len(s))
	for i, x := range s {
		out[i] = PrioStats{Class: x.Class, Level: x.Level, Clat: x.Clat.Clone(), Lat: x.Lat.Clone()}
	}
	return out
}

// fioPrios is a direction's "prios" array as fio 3.33 writes it: the
// priorities that completed I/O, each with "lat_ns" when lat percentiles
// are on, else "clat_ns".
func fioPrios(j *JobResult, slots []PrioStats, format OutputFormat) []ordered {
	var out []ordered
	pcts := j.Job.percentileList()
	for _, s := range slots {
		if s.Clat.Count() == 0 {
			continue
		}
		o := ordered{{"prioclass", s.Class}, {"prio", s.Level}}
		if j.Job.LatPercentiles {
			o = append(o, field{"lat_ns", fioStat(s.Lat, true, pcts, format)})
		} else {
			o = append(o, field{"clat_ns", fioStat(s.Clat, !j.Job.NoClatPercentiles, pcts, format)})
		}
		out = append(out, o)
	}
	return out
}
