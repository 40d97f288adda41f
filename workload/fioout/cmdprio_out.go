package fioout

import (
	"slices"

	"stortest.dev/workload"
)

// The "prios" member of fio's JSON output.

// fioPrios is a direction's "prios" array as fio 3.33 writes it: the
// priorities that completed I/O, each with "lat_ns" when lat percentiles
// are on, else "clat_ns".
func fioPrios(j *workload.JobResult, slots []workload.PrioStats, format OutputFormat) []ordered {
	var out []ordered
	pcts := j.Job.Percentiles()
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

// mergePrios adds o's per-priority stats to s's, matching priorities; a
// priority s lacks goes after s's, as fio 3.33 sums its clat_prio arrays.
func mergePrios(s, o []workload.PrioStats) []workload.PrioStats {
	for _, x := range o {
		i := slices.IndexFunc(s, func(y workload.PrioStats) bool { return y.Class == x.Class && y.Level == x.Level })
		if i < 0 {
			s = append(s, workload.PrioStats{Class: x.Class, Level: x.Level, Clat: x.Clat.Clone(), Lat: x.Lat.Clone()})
			continue
		}
		_ = s[i].Clat.Merge(x.Clat)
		_ = s[i].Lat.Merge(x.Lat)
	}
	return s
}

func clonePrios(s []workload.PrioStats) []workload.PrioStats {
	out := make([]workload.PrioStats, len(s))
	for i, x := range s {
		out[i] = workload.PrioStats{Class: x.Class, Level: x.Level, Clat: x.Clat.Clone(), Lat: x.Lat.Clone()}
	}
	return out
}
