package fiojob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// Reading the cmdprio options.

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
func parsePrioSplit(v string) ([2][]workload.PrioSplit, error) {
	var out [2][]workload.PrioSplit
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
			s := workload.PrioSplit{Size: bs, Class: -1, Level: -1}
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
func cmdprioString(c *workload.CmdPrio) string {
	if c.IsZero() {
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
				x := workload.FormatSize(s.Size) + "/" + strconv.Itoa(s.Percent)
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
