package stortest

import (
	"fmt"
	"io"
	"sync"

	"stortest.dev/regress"
)

// noted holds the baseline comparisons of the test binary that were not
// a plain pass, for the summary Main prints at the end: go test shows
// the t.Log lines of a passing test only with -v, and an inconclusive
// comparison must not pass unseen.
var noted struct {
	mu   sync.Mutex
	list []comparison
}

// comparison is one CheckBaseline comparison: the test and its report.
type comparison struct {
	test string
	rep  regress.Report
}

// noteComparison keeps a comparison for the summary unless it is a plain
// pass.
func noteComparison(test string, rep regress.Report) {
	if rep.Verdict == regress.Pass {
		return
	}
	noted.mu.Lock()
	defer noted.mu.Unlock()
	noted.list = append(noted.list, comparison{test, rep})
}

// notedComparisons returns the comparisons kept so far, in order.
func notedComparisons() []comparison {
	noted.mu.Lock()
	defer noted.mu.Unlock()
	return append([]comparison(nil), noted.list...)
}

// writeComparisons prints each comparison in one line, "stortest:
// <test>/<job>: <verdict> (<counts>)", followed by the reason of each of
// its findings that is not a pass, indented:
//
//	stortest: TestRandRead4K/randread-4k: inconclusive (1 inconclusive, 5 pass)
//	    read iops 19.6k IOPS vs baseline 20k IOPS (-2.0%, ...): inconclusive: ...
func writeComparisons(w io.Writer, cs []comparison) error {
	for _, c := range cs {
		if _, err := fmt.Fprintf(w, "stortest: %s/%s\n", c.test, c.rep.Summary()); err != nil {
			return err
		}
		for _, f := range c.rep.Findings {
			if f.Verdict == regress.Pass {
				continue
			}
			if _, err := fmt.Fprintf(w, "    %s\n", f.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}
