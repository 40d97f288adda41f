package fioout

import (
	"maps"
	"slices"

	"stortest.dev/workload"
)

// groupReport returns r with its jobs summed as fio 3.33's
// group_reporting sums them: a job (clone) with GroupReporting joins the
// entry before it when both are of one reporting group, whatever their
// sections; the entry keeps the first one's name. The I/O totals and
// histograms are summed, the runtime is the longest, the per-second
// samples are summed second by second, CPU, context switches and depth
// counts summed. r itself is not changed.
func groupReport(r *workload.Result) *workload.Result {
	groups := reportGroups(r.Jobs)
	joins := func(i int) bool {
		return i > 0 && r.Jobs[i].Job.GroupReporting && groups[i] == groups[i-1]
	}
	if !slices.ContainsFunc(r.Jobs, func(j *workload.JobResult) bool { return j.Job.GroupReporting }) {
		return r
	}
	out := &workload.Result{DiskUtil: r.DiskUtil, FioOptions: r.FioOptions}
	for i := 0; i < len(r.Jobs); {
		n := 1
		for i+n < len(r.Jobs) && joins(i+n) {
			n++
		}
		if n == 1 {
			out.Jobs = append(out.Jobs, r.Jobs[i])
		} else {
			out.Jobs = append(out.Jobs, sumJobs(r.Jobs[i:i+n]))
		}
		i += n
	}
	return out
}

// reportGroups numbers the reporting groups of jobs (fio's groupid), as
// fio 3.33 does: a job section with stonewall or new_group starts the
// next group, unless no job came before it.
func reportGroups(jobs []*workload.JobResult) []int {
	g := make([]int, len(jobs))
	for i, j := range jobs {
		if i > 0 {
			g[i] = g[i-1]
			if j.Clone == 0 && (j.Job.Stonewall || j.Job.NewGroup) {
				g[i]++
			}
		}
	}
	return g
}

// sumJobs sums clones into a new JobResult named after the first.
func sumJobs(clones []*workload.JobResult) *workload.JobResult {
	first := clones[0]
	s := *first
	s.ErrnoCounts = maps.Clone(first.ErrnoCounts)
	s.FirstErrors = slices.Clone(first.FirstErrors)
	s.Seconds = slices.Clone(first.Seconds)
	s.Slices = slices.Clone(first.Slices)
	s.Verify.First = slices.Clone(first.Verify.First)
	for d := range workload.NumDirs {
		s.Dirs[d] = cloneDir(first.Dirs[d])
	}
	s.Sync = cloneDir(first.Sync)
	for d := range workload.NumDirs {
		s.Prios[d] = clonePrios(first.Prios[d])
	}
	for _, c := range clones[1:] {
		for d := range workload.NumDirs {
			_ = s.Dirs[d].Add(&c.Dirs[d]) // clones of one job share a layout
			s.Prios[d] = mergePrios(s.Prios[d], c.Prios[d])
		}
		_ = s.Sync.Add(&c.Sync)
		s.Runtime = max(s.Runtime, c.Runtime)
		if !c.Start.IsZero() && (s.Start.IsZero() || c.Start.Before(s.Start)) {
			s.Start = c.Start
		}
		for i := range min(len(s.Seconds), len(c.Seconds)) {
			for d := range workload.NumDirs {
				s.Seconds[i].IOs[d] += c.Seconds[i].IOs[d]
				s.Seconds[i].Bytes[d] += c.Seconds[i].Bytes[d]
			}
		}
		for i := range min(len(s.Slices), len(c.Slices)) {
			for d := range workload.NumDirs {
				s.Slices[i].IOs[d] += c.Slices[i].IOs[d]
				s.Slices[i].Bytes[d] += c.Slices[i].Bytes[d]
			}
		}
		for e, n := range c.ErrnoCounts {
			s.ErrnoCounts[e] += n
		}
		s.FirstErrors = append(s.FirstErrors, c.FirstErrors...)
		s.Verify.Checked += c.Verify.Checked
		s.Verify.Mismatches += c.Verify.Mismatches
		s.Verify.First = append(s.Verify.First, c.Verify.First...)
		s.UsrCPU += c.UsrCPU
		s.SysCPU += c.SysCPU
		s.Ctx += c.Ctx
		s.MajFlt += c.MajFlt
		s.MinFlt += c.MinFlt
		for k := range 7 {
			s.Depths.Level[k] += c.Depths.Level[k]
			s.Depths.Submit[k] += c.Depths.Submit[k]
			s.Depths.Complete[k] += c.Depths.Complete[k]
		}
		s.Outstanding = append(s.Outstanding, c.Outstanding...)
		s.Canceled = s.Canceled || c.Canceled
		if s.Err == nil {
			s.Err = c.Err
		}
	}
	return &s
}

func cloneDir(d workload.DirStats) workload.DirStats {
	c := d
	if d.Slat != nil {
		c.Slat, c.Clat, c.Lat = d.Slat.Clone(), d.Clat.Clone(), d.Lat.Clone()
	}
	return c
}

// mixed returns j with its directions summed into DirRead, its
// per-second samples likewise: fio's "mixed" direction of
// unified_rw_reporting, to be printed as DirRead is.
func mixed(j *workload.JobResult) *workload.JobResult {
	m := *j
	m.Dirs[workload.DirRead] = cloneDir(j.Dirs[workload.DirRead])
	m.Prios[workload.DirRead] = clonePrios(j.Prios[workload.DirRead])
	for d := workload.DirWrite; d < workload.NumDirs; d++ {
		_ = m.Dirs[workload.DirRead].Add(&j.Dirs[d]) // one job's directions share a layout
		m.Prios[workload.DirRead] = mergePrios(m.Prios[workload.DirRead], j.Prios[d])
	}
	m.Seconds = slices.Clone(j.Seconds)
	for i := range m.Seconds {
		s := &m.Seconds[i]
		for d := workload.DirWrite; d < workload.NumDirs; d++ {
			s.IOs[workload.DirRead] += s.IOs[d]
			s.Bytes[workload.DirRead] += s.Bytes[d]
		}
	}
	return &m
}

// fioDirs are the job's direction objects as unified_rw_reporting asks:
// read, write and trim; "mixed"; or both.
func fioDirs(j *workload.JobResult, format OutputFormat) []field {
	var out []field
	if j.Job.UnifiedRW != workload.UnifiedMixed {
		for d := range workload.NumDirs {
			out = append(out, field{d.String(), withPrios(fioDir(j, d, format), j, j.Prios[d], format)})
		}
	}
	if j.Job.UnifiedRW != workload.UnifiedNone {
		m := mixed(j)
		out = append(out, field{"mixed", withPrios(fioDir(m, workload.DirRead, format), m, m.Prios[workload.DirRead], format)})
	}
	return out
}

// withPrios inserts a direction's "prios" after its "lat_ns", where fio
// 3.33 writes them, when the job gives I/Os priorities and the direction
// completed I/O at two priorities or more (fio leaves them out when every
// I/O had one).
func withPrios(dir ordered, j *workload.JobResult, slots []workload.PrioStats, format OutputFormat) ordered {
	p := fioPrios(j, slots, format)
	if len(p) < 2 {
		return dir
	}
	i := slices.IndexFunc(dir, func(f field) bool { return f.K == "lat_ns" })
	return slices.Insert(dir, i+1, field{"prios", p})
}
