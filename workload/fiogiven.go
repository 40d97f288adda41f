package workload

// The options of a job file or command line as given, for fio's
// "global options" and "job options" JSON members: fio prints each
// section's options in the order given, under the option's own name
// (bs for blocksize), with the value as written (after ${VAR}
// expansion), and leaves out options given without a value (a bare
// "thread" or "time_based"). Its global options start with those of the
// command line.

// FioOption is one option as given.
type FioOption struct {
	Name, Value string
}

// FioGiven are the options of a parsed job file or command line as
// given: Global those of [global] sections and the command line, Jobs[i]
// those of the i-th job's own section (with its --name on a command
// line, as fio prints it).
type FioGiven struct {
	Global []FioOption
	Jobs   [][]FioOption
}

// addGiven records an option that was set, as fio prints it.
func (s *jobState) addGiven(name, val string, hasVal bool) {
	if !hasVal {
		return
	}
	s.given = append(s.given, FioOption{name, val})
}

// fioGivenOptions is an options list as a JSON object.
func fioGivenOptions(opts []FioOption) ordered {
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
func givenFor(r *Result) [][]FioOption {
	g := r.FioOptions
	if g == nil {
		return nil
	}
	out := make([][]FioOption, len(r.Jobs))
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
