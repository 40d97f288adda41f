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

// maxPrioSplit is fio's BSSPLIT_MAX: entries of one direction's list.
const maxPrioSplit = 64

// parsePrioSplit parses cmdprio_bssplit as fio 3.33 does: entries
// "bs/percent" or "bs/percent/class/level" (a bare "bs" or "bs/" is 0%,
// three fields are refused) joined by ':', a read list, a write list and a
// trim list apart by ',' (one list for all; the trim list is ignored). A
// percentage above 100, a class above 3 and a level above 7 are clamped,
// as fio clamps them; class 0 (none) is refused.
func parsePrioSplit(v string) ([2][]workload.PrioSplit, error) {
	var out [2][]workload.PrioSplit
	dirs := strings.Split(v, ",")
	if len(dirs) > 3 {
		return out, fmt.Errorf("%q has more than 3 lists (read,write,trim)", v)
	}
	for d, list := range dirs[:min(len(dirs), 2)] {
		entries := strings.Split(list, ":")
		if len(entries) > maxPrioSplit {
			return out, fmt.Errorf("%q: more than %d entries (fio: \"too many cmdprio_bssplit entries\")", list, maxPrioSplit)
		}
		for _, e := range entries {
			e = strings.TrimSpace(e)
			if e == "" {
				break // fio stops at an empty entry
			}
			f := strings.Split(e, "/")
			if len(f) > 4 {
				f = f[:4] // fio reads four fields and ignores the rest
			}
			if len(f) == 2 && f[1] == "" {
				f = f[:1]
			}
			if len(f) == 3 {
				return out, fmt.Errorf("%q is not bs/percent or bs/percent/class/level (fio: \"invalid cmdprio_bssplit format\")", e)
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
				if err != nil || n < bounds[i][0] {
					return out, fmt.Errorf("%q: %q is not a number from %d", e, x, bounds[i][0])
				}
				*dst[i] = min(n, bounds[i][1])
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
	var b jobText
	pair := func(k string, v [2]int) {
		if v == [2]int{} {
			return
		}
		s := strconv.Itoa(v[0])
		if v[1] != v[0] {
			s += "," + strconv.Itoa(v[1])
		}
		b.kv(k, s)
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
		b.kv("cmdprio_bssplit", v)
	}
	return b.String()
}
