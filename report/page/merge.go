package page

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/latency/histlog"
)

// Merge is the page of `stortest hist merge --format html`: the
// cluster-wide percentiles over time of histogram logs from many hosts
// or jobs, each host's or job's own as a faint line beneath, so that one
// node's trouble stands out of the whole.
type Merge struct {
	Title string
	// Cluster is the merge of every input; Inputs are the inputs of each
	// label (a host, a job) merged alone on the same time quanta, in the
	// order given.
	Cluster *MergeSeries
	Inputs  []*MergeSeries
}

// MergeSeries is one merge's output, as rows per direction.
type MergeSeries struct {
	Label       string
	Start       int64 // ms on the logs' clock (Summary.Start)
	Quantum     int64 // ms
	Percentiles []float64
	Rows        map[histlog.Direction][]MergeRow
}

// MergeRow is one quantum of one direction.
type MergeRow struct {
	Time        int64   // ms on the logs' clock, start of the quantum
	Samples     float64 // completions
	Percentiles []float64
}

// Sink returns a histlog.Sink that collects a merge's rows into s.
func (s *MergeSeries) Sink() histlog.Sink { return (*mergeSink)(s) }

type mergeSink MergeSeries

func (m *mergeSink) Begin(sum *histlog.Summary) error {
	m.Start, m.Quantum = sum.Start, sum.Quantum
	m.Percentiles = slices.Clone(sum.Percentiles)
	if m.Rows == nil {
		m.Rows = map[histlog.Direction][]MergeRow{}
	}
	return nil
}

func (m *mergeSink) Row(r *histlog.Row) error {
	m.Rows[r.Dir] = append(m.Rows[r.Dir], MergeRow{Time: r.Time, Samples: r.Samples, Percentiles: slices.Clone(r.Percentiles)})
	return nil
}

func (m *mergeSink) End(*histlog.Summary) error { return nil }

// epochMs is a time on the logs' clock above which it is a unix time in
// ms (2001 on), not one since the job's start.
const epochMs = 1e12

// WriteMerge writes m's page.
func WriteMerge(w io.Writer, m *Merge) error {
	_, err := io.WriteString(w, RenderMerge(m))
	return err
}

// RenderMerge returns m's page: per direction with completions, the
// completions per second and each percentile over time, the cluster's
// line bold over one faint line per input.
func RenderMerge(m *Merge) string {
	var d doc
	c := m.Cluster
	sub := fmt.Sprintf("%d input(s), quanta of %v", len(m.Inputs), time.Duration(c.Quantum)*time.Millisecond)
	if c.Start >= epochMs {
		sub += ", time from " + time.UnixMilli(c.Start).UTC().Format("2006-01-02 15:04:05.000") + " UTC"
	}
	d.begin(m.Title, sub)
	var labels []string
	for _, in := range m.Inputs {
		labels = append(labels, in.Label)
	}
	d.kv([][2]string{{"inputs", joinLimited(labels, 12)}})
	for _, dir := range []histlog.Direction{histlog.Read, histlog.Write, histlog.Trim, histlog.All} {
		rows := c.Rows[dir]
		if !hasSamples(rows) {
			continue
		}
		id := dir.String()
		d.h2(id, "Direction "+dir.String())
		d.chart(m.chart(id+"-samples", dir, -1))
		for k := range c.Percentiles {
			d.chart(m.chart(id+"-p"+pctKey(c.Percentiles[k]), dir, k))
		}
	}
	return d.end()
}

func hasSamples(rows []MergeRow) bool {
	for _, r := range rows {
		if r.Samples > 0 {
			return true
		}
	}
	return false
}

// pctKey names a percentile in ids: "99.9" -> "99_9".
func pctKey(p float64) string {
	b := []byte(strconv.FormatFloat(p, 'f', -1, 64))
	for i, c := range b {
		if c == '.' {
			b[i] = '_'
		}
	}
	return string(b)
}

func pctName(p float64) string {
	switch p {
	case 0:
		return "min"
	case 100:
		return "max"
	}
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// chart draws percentile k of direction dir over time (k < 0: the
// completions per second).
func (m *Merge) chart(id string, dir histlog.Direction, k int) *chart {
	c := m.Cluster
	q := float64(c.Quantum) / 1000
	title := dir.String() + " completions per second"
	y := axis{label: "completions", kind: kindCount, unit: "IOPS"}
	if k >= 0 {
		title = dir.String() + " clat " + pctName(c.Percentiles[k]) + " per quantum, cluster and each input"
		y = axis{label: "clat " + pctName(c.Percentiles[k]), kind: kindNS, log: true}
	}
	ch := &chart{id: id, title: title, y: y, x: axis{label: "time", kind: kindTime}}
	line := func(s *MergeSeries, name, class string) series {
		rows := s.Rows[dir]
		out := series{name: name, class: class, step: true, xs: make([]float64, 0, len(rows)+1), ys: make([]float64, 0, len(rows)+1)}
		for _, r := range rows {
			out.xs = append(out.xs, float64(r.Time-c.Start)/1000)
			switch {
			case k < 0:
				out.ys = append(out.ys, r.Samples/q)
			case r.Samples > 0 && k < len(r.Percentiles):
				out.ys = append(out.ys, r.Percentiles[k]) // NaN when the quantum is empty
			default:
				out.ys = append(out.ys, math.NaN())
			}
		}
		if n := len(rows); n > 0 {
			out.xs = append(out.xs, float64(rows[n-1].Time+c.Quantum-c.Start)/1000)
			out.ys = append(out.ys, out.ys[len(out.ys)-1])
		}
		return out
	}
	for _, in := range m.Inputs {
		ch.lines = append(ch.lines, line(in, in.Label, "c7 faint"))
	}
	ch.lines = append(ch.lines, line(c, "cluster", dirClass[dir.String()]+" bold"))
	if dir == histlog.All {
		ch.lines[len(ch.lines)-1].class = "c3 bold"
	}
	if len(m.Inputs) > 0 {
		ch.note = "Faint: each of the " + strconv.Itoa(len(m.Inputs)) + " inputs merged alone (hover for its name); bold: all merged."
	}
	return ch
}

// joinLimited lists up to n labels and counts the rest.
func joinLimited(ls []string, n int) string {
	if len(ls) <= n {
		return strings.Join(ls, ", ")
	}
	return strings.Join(ls[:n], ", ") + fmt.Sprintf(" and %d more", len(ls)-n)
}

// NewMerge merges inputs as histlog.Merge does under cfg, once all
// together and once per label (a host's logs, or one job's) on the same
// quanta, and returns the page. cfg's Progress is called for the merge of
// all.
func NewMerge(ctx context.Context, title string, inputs []histlog.Input, cfg histlog.Config) (*Merge, error) {
	m := &Merge{Title: title, Cluster: &MergeSeries{Label: "cluster"}}
	cfg.ByInput = false
	if _, err := histlog.Merge(ctx, inputs, cfg, m.Cluster.Sink()); err != nil {
		return nil, err
	}
	cfg.Progress = nil
	var labels []string
	byLabel := map[string][]histlog.Input{}
	for _, in := range inputs {
		if _, ok := byLabel[in.Label]; !ok {
			labels = append(labels, in.Label)
		}
		byLabel[in.Label] = append(byLabel[in.Label], in)
	}
	for _, l := range labels {
		s := &MergeSeries{Label: l}
		if _, err := histlog.Merge(ctx, byLabel[l], cfg, s.Sink()); err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, s)
	}
	return m, nil
}
