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
