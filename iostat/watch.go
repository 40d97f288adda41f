package iostat

import (
	"context"
	"io"
	"time"
)

// WatchConfig is one run of iostat: what to read, how to print it, and
// how often.
type WatchConfig struct {
	Monitor MonitorConfig
	Report  ReportOptions
	// JSON prints sysstat's JSON (-o JSON) instead of the plain report.
	JSON bool
	// Interval between reports; 0 prints one report, as iostat 0 does.
	Interval time.Duration
	// Count is the number of reports; 0 or less reports until ctx is
	// done. Without an Interval there is one.
	Count int
	// SkipFirst leaves out the first report, the one since boot (-y);
	// with no Interval there is nothing to skip.
	SkipFirst bool
	// Counters prints each plain report's raw counters and notes after
	// it (WriteReportCounters).
	Counters bool
	// Notes, when set, receives each distinct note once (a line of
	// diskstats skipped, a named device missing), for a log beside the
	// report; iostat itself prints none.
	Notes func(Note)
	// Wait, when set, replaces the sleep between samples: it returns
	// when the next sample is due, or ctx's error. Tests use it to step
	// through recorded samples.
	Wait func(ctx context.Context) error
}

// Watch takes samples and prints reports to out as sysstat's iostat does,
// until Count reports are out or ctx is done (a JSON document is ended
// properly then). The host is the banner's.
func (f FS) Watch(ctx context.Context, c WatchConfig, host Host, out io.Writer) error {
	m, err := f.NewMonitor(c.Monitor)
	if err != nil {
		return err
	}
	count := c.Count
	if c.Interval <= 0 {
		count = 1
	}
	skip := c.SkipFirst && c.Interval > 0
	var (
		write  func(Report) error
		skipFn func() error
		finish func() error
	)
	if c.JSON {
		w := NewJSONWriter(out, host, c.Report)
		write, skipFn, finish = w.WriteReport, w.Skip, w.Close
	} else {
		w := NewTextWriter(out, host, c.Report)
		write = func(r Report) error {
			if err := w.WriteReport(r); err != nil {
				return err
			}
			if c.Counters {
				return WriteReportCounters(out, r)
			}
			return nil
		}
		skipFn, finish = w.Skip, w.Begin
	}
	wait := c.Wait
	if wait == nil && c.Interval > 0 {
		// Started before the first sample, as iostat's alarm is, so
		// samples keep their period however long printing takes.
		t := time.NewTicker(c.Interval)
		defer t.Stop()
		wait = func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	seen := map[Note]bool{}
	for printed, first := 0, true; count <= 0 || printed < count; first = false {
		if !first {
			if err := wait(ctx); err != nil {
				return finish() // interrupted: end the document properly
			}
		}
		r, err := m.Sample()
		if err != nil {
			if ferr := finish(); ferr != nil {
				return ferr
			}
			return err
		}
		if c.Notes != nil {
			for _, n := range r.Notes {
				if !seen[n] {
					seen[n] = true
					c.Notes(n)
				}
			}
		}
		if first && skip {
			if err := skipFn(); err != nil {
				return err
			}
			continue
		}
		if err := write(r); err != nil {
			return err
		}
		printed++
	}
	return finish()
}
