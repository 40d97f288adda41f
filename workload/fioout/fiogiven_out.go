package fioout

import

// The options as given in fio's JSON output.
"stortest.dev/workload"

// fioGivenOptions is an options list as a JSON object.
func fioGivenOptions(opts []workload.FioOption) ordered {
	o := make(ordered, len(opts))
	for i, f := range opts {
		o[i] = field{f.Name, f.Value}
	}
	return o
}

// givenFor returns the options given for each result of r, by the
// index of the job it is a clone of (results list every clone of every
// job in order, clone 0 first), or nil when r has no options as given
// or they do not fit its jobs.
func givenFor(r *workload.Result) [][]workload.FioOption {
	g := r.FioOptions
	if g == nil {
		return nil
	}
	out := make([][]workload.FioOption, len(r.Jobs))
	k := -1
	for i, j := range r.Jobs {
		if j.Clone == 0 {
			k++
		}
		if k < 0 || k >= len(g.Jobs) {
			return nil
		}
		out[i] = g.Jobs[k]
	}
	return out
}
