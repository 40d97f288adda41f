package iogen

import "stortest.dev/workload/internal/jobtest"

// The helpers shared with the other packages' tests.
var (
	parseFile   = jobtest.ParseFile
	dupFraction = jobtest.DupFraction
	flateRatio  = jobtest.FlateRatio
	roundTrip   = jobtest.RoundTrip
)
