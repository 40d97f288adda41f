package histlog

import (
	"fmt"
	"math/bits"

	"stortest.dev/latency"
)

// MaxCoarseness is the largest log_hist_coarseness fio accepts: each column
// then sums 2^6 = 64 fine buckets.
const MaxCoarseness = 6

// fio 2 counted latencies in microseconds with 19 groups (1216 buckets);
// fio 3 counts nanoseconds with 29 groups (1856 buckets).
const (
	fio2Groups = 19
	fio2Unit   = 1000 // nanoseconds per fio 2 latency unit
)

// Format is the shape of a log's rows: the histogram layout the counts
// come from, how many fine buckets each column sums (2^Coarseness) and
// the latency unit of the buckets.
type Format struct {
	Layout     latency.Layout
	Coarseness int
	// Unit is the number of nanoseconds per latency unit of the layout:
	// 1 for fio 3 and stortest logs, 1000 for fio 2 logs (microseconds).
	Unit uint64
}

// FioFormat is the format of fio 3's logs with coarseness 0.
var FioFormat = Format{Layout: latency.FioLayout, Unit: 1}

// Columns returns the number of count columns of a row.
func (f Format) Columns() int { return f.Layout.Buckets() >> f.Coarseness }

// FioVersion returns 2 for fio 2's microsecond logs, else 3.
func (f Format) FioVersion() int {
	if f.Unit == fio2Unit {
		return 2
	}
	return 3
}

// Bounds returns the range [lo, hi) of latencies, in nanoseconds, counted
// by column col: from the low bound of its first fine bucket to the high
// bound of its last. The last column also holds every latency above the
// layout's ceiling.
func (f Format) Bounds(col int) (lo, hi uint64) {
	first := col << f.Coarseness
	last := first + 1<<f.Coarseness - 1
	lo, _ = f.Layout.Bounds(first)
	_, hi = f.Layout.Bounds(last)
	return lo * f.Unit, hi * f.Unit
}

func (f Format) String() string {
	return fmt.Sprintf("%d groups, coarseness %d, fio %d (%d columns)",
		f.Layout.Groups(), f.Coarseness, f.FioVersion(), f.Columns())
}

// ReaderOptions tell the reader what a log's columns mean when the column
// count alone cannot (see DetectFormat).
type ReaderOptions struct {
	// FioVersion is 2 for logs of fio 2 (19 groups of microsecond
	// buckets), 3 for fio 3 and stortest logs (nanoseconds), 0 to detect.
	FioVersion int
	// Groups is the histogram's group count, 0 to detect.
	Groups int
}

// DetectFormat returns the format of rows with n count columns. Without
// options: n = 1856 >> c is fio 3 with coarseness c; n = 1216 >> c is
// fio 2 with coarseness c; any other multiple of 64 is a stortest log of
// n/64 groups (nanoseconds, coarseness 0). So a 19-group stortest log
// reads as fio 2 unless opt.FioVersion is 3. With opt.Groups set, the
// coarseness is whatever makes the count fit.
func DetectFormat(n int, opt ReaderOptions) (Format, error) {
	f, err := detectFormat(n, opt)
	if err != nil {
		return Format{}, fmt.Errorf("histlog: %w", err)
	}
	return f, nil
}

// detectFormat is DetectFormat with errors for a ParseError to wrap.
func detectFormat(n int, opt ReaderOptions) (Format, error) {
	if n <= 0 {
		return Format{}, fmt.Errorf("%w: a row needs at least one count", ErrColumns)
	}
	unit := uint64(1)
	groups := opt.Groups
	switch opt.FioVersion {
	case 0, 3:
	case 2:
		unit = fio2Unit
		if groups == 0 {
			groups = fio2Groups
		}
	default:
		return Format{}, fmt.Errorf("fio version %d: want 2 or 3", opt.FioVersion)
	}
	if groups == 0 {
		switch {
		case coarsenessFor(latency.FioGroups, n) >= 0:
			groups = latency.FioGroups
		case opt.FioVersion == 0 && coarsenessFor(fio2Groups, n) >= 0:
			groups, unit = fio2Groups, fio2Unit
		case n%latency.BucketsPerGroup == 0:
			groups = n / latency.BucketsPerGroup
		default:
			return Format{}, fmt.Errorf("%w: %d counts is neither fio's 1856 (or 1216 for fio 2) buckets >> coarseness nor a multiple of %d; give the group count",
				ErrColumns, n, latency.BucketsPerGroup)
		}
	}
	l, err := latency.NewLayout(groups)
	if err != nil {
		return Format{}, fmt.Errorf("%w: %d counts: %v", ErrColumns, n, err)
	}
	c := coarsenessFor(groups, n)
	if c < 0 {
		return Format{}, fmt.Errorf("%w: %d counts does not fit %d groups (%d buckets >> coarseness 0 to %d)",
			ErrColumns, n, groups, l.Buckets(), MaxCoarseness)
	}
	return Format{Layout: l, Coarseness: c, Unit: unit}, nil
}

// coarsenessFor returns c with groups*64 >> c == n, or -1.
func coarsenessFor(groups, n int) int {
	b := groups * latency.BucketsPerGroup
	if n <= 0 || b%n != 0 {
		return -1
	}
	r := b / n
	if r&(r-1) != 0 {
		return -1
	}
	c := bits.TrailingZeros(uint(r))
	if c > MaxCoarseness {
		return -1
	}
	return c
}
