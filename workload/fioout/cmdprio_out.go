package fioout

import

// The "prios" member of fio's JSON output.
"stortest.dev/workload"

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
