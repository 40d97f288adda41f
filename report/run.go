package report

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/iostat"
	"stortest.dev/regress"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// ErrNoResult is returned by NewCase for a run without jobs that does
// not say why (no Errors, not Skipped).
var ErrNoResult = errors.New("report: run has no job results")

// Run is what the report knows of one workload run; NewCase makes its
// testcase.
type Run struct {
	Test   string           // the Go test's name: the case's classname
	Result *workload.Result // the run; its job's name is the case's name
	// Job names the case; "" means JobName(Result). A run that could not
	// start (no Result) needs it, and Errors or Skipped saying why.
	Job string
	// IOStat holds the counters of the target's devices over the run,
	// printed as sysstat's "iostat -x" table; nil leaves it out.
	IOStat *iostat.Delta
	Host   iostat.Host // the iostat table's banner
	// Elapsed is the run's wall time, ramp and setup included.
	Elapsed time.Duration
	// Fingerprint describes what was measured (device model, firmware,
	// kernel, engine, job), after the metrics in the properties.
	Fingerprint []Property
	// Artifacts are absolute paths of the run's files (fio json+, iostat
	// samples, histogram logs).
	Artifacts        []string
	Failures, Errors []Failure
	Skipped          string
	// Warnings are reasons to doubt the figures that fail nothing; each
	// is a "warning.<Kind>" property and a "warning: <Message>" line at
	// the top of the output.
	Warnings []Warning
	// Baselines are the run's comparisons with its stored baseline,
	// usually one: each adds the verdict and its reasons to the case
	// (Case.AddBaseline).
	Baselines []regress.Report
}

// Warning is a reason to doubt a run's figures that fails nothing (the
// run was CPU-bound, served by the page cache...). Kind is a short
// stable token, "cpu-bound"; Message is one line for people.
type Warning struct {
	Kind, Message string
}

// NewCase turns a run into a testcase: named after the test and the job,
// with the run's Metrics, fingerprint, Warnings and baseline verdict as
// properties, the warnings, the summary (fioout.WriteSummary), the
// iostat table and the baseline comparisons as output, and the artifacts
// as attachments. A run that could not start
// (no Result) needs its Job name and Errors or Skipped.
func NewCase(r Run) (Case, error) {
	ran := r.Result != nil && len(r.Result.Jobs) > 0
	name := r.Job
	switch {
	case ran && name == "":
		name = JobName(r.Result)
	case !ran && (name == "" || len(r.Errors) == 0 && r.Skipped == ""):
		return Case{}, ErrNoResult
	}
	var out strings.Builder
	for _, w := range r.Warnings {
		out.WriteString("warning: " + oneLine(w.Message) + "\n")
	}
	if len(r.Warnings) > 0 && (ran || r.IOStat != nil) {
		out.WriteString("\n")
	}
	if ran {
		if err := fioout.WriteSummary(&out, r.Result); err != nil {
			return Case{}, fmt.Errorf("report: summary: %w", err)
		}
	}
	if r.IOStat != nil {
		out.WriteString("\n")
		w := iostat.NewTextWriter(&out, r.Host, iostat.ReportOptions{Extended: true, AllDevices: true})
		if err := w.Write(*r.IOStat, r.IOStat.Curr); err != nil {
			return Case{}, fmt.Errorf("report: iostat table: %w", err)
		}
	}
	c := Case{
		Classname:   r.Test,
		Name:        name,
		Time:        r.Elapsed,
		Properties:  append(append(Metrics(r.Result), r.Fingerprint...), warningProperties(r.Warnings)...),
		Output:      out.String(),
		Attachments: slices.Clone(r.Artifacts),
		Failures:    slices.Clone(r.Failures),
		Errors:      slices.Clone(r.Errors),
		Skipped:     r.Skipped,
	}
	for _, rep := range r.Baselines {
		c.AddBaseline(rep)
	}
	return c, nil
}

// warningProperties makes the "warning.<Kind>" properties, in order of
// first appearance, joining the messages of a kind given twice with "; "
// (a property name appears once in a valid report).
func warningProperties(ws []Warning) []Property {
	var props []Property
	at := map[string]int{}
	for _, w := range ws {
		msg := oneLine(w.Message)
		if i, ok := at[w.Kind]; ok {
			props[i].Value += "; " + msg
			continue
		}
		at[w.Kind] = len(props)
		props = append(props, Property{"warning." + w.Kind, msg})
	}
	return props
}

// oneLine keeps a message on one line of the output.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// JobName names a run by its jobs: the job's name, or the names of
// several jobs joined by "+" in order of first appearance (clones share
// their job's name).
func JobName(res *workload.Result) string {
	var names []string
	for _, j := range res.Jobs {
		if !slices.Contains(names, j.Name) {
			names = append(names, j.Name)
		}
	}
	return strings.Join(names, "+")
}

// metricTable is regress' metric table (a test adds rows to it).
var metricTable = regress.MetricTable

// Percentiles are the completion-latency percentiles Metrics reports:
// those of regress' metric table with a property.
var Percentiles = func() []float64 {
	var out []float64
	for _, m := range metricTable() {
		if m.Property != "" && m.Stat == "clat" && m.P > 0 {
			out = append(out, m.P)
		}
	}
	return out
}()

// Metrics returns a run's headline figures, per direction that did I/O,
// summed over the jobs' clones: the metrics of regress' table with a
// property (regress.Metric.Property), "read.iops", "read.bw_bytes"
// (bytes/s), and "read.clat_p50_ns", "read.clat_p99_ns",
// "read.clat_p99.9_ns" from the merged completion-latency histograms, as
// fio computes them. The order is fixed: read, write, trim, and within
// each the table's.
func Metrics(res *workload.Result) []Property {
	if res == nil {
		return nil
	}
	merged := res.Merged()
	var props []Property
	table := metricTable()
	for d := range workload.NumDirs {
		if merged[d].IOs == 0 {
			continue
		}
		dir := &baselines.Dir{Name: d.String(), IOs: merged[d].IOs, Bytes: merged[d].Bytes, ShortIOs: merged[d].ShortIOs,
			Errors: merged[d].Errors, Slat: baselines.StatOf(merged[d].Slat), Clat: baselines.StatOf(merged[d].Clat),
			Lat: baselines.StatOf(merged[d].Lat)}
		for _, j := range res.Jobs {
			dir.IOPS += j.IOPS(d)
			dir.BW += j.BW(d)
		}
		for _, m := range table {
			if m.Property == "" {
				continue
			}
			if v, ok := m.Value(dir); ok {
				props = append(props, Property{dir.Name + "." + m.Property, strconv.FormatFloat(v, 'f', 0, 64)})
			}
		}
	}
	return props
}
