package regress

// Rule returns the rule that applies to metric ("read.clat.p99"): the
// last match of DefaultRules followed by c.Rules, as Compare applies
// them. Packages that judge changes of their own (history) use it so
// that one set of tolerances decides everywhere.
func (c Config) Rule(metric string) Rule { return c.rule(metric) }

// Format prints a value in the unit as reports print it: "2.41ms",
// "12.6k IOPS", "49.3MiB/s".
func (u Unit) Format(v float64) string { return u.format(v) }
