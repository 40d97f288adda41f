package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"stortest.dev/internal/durable"
	"stortest.dev/latency/histlog"
)

// histInputs turns hist merge's arguments into inputs grouped by host.
// An argument is a log ("[LABEL=]FILE", labelled as histlog.ParseInput
// does, its host the label's first path element: "node3/h.2" is node3's)
// or a directory ("[HOST=]DIR"): every histogram log under it (names
// with "_hist." ending in .log or .log.gz, hidden files skipped), its
// host the given label or the directory's name, each log labelled
// "HOST/<log>" so that per-input columns stay apart. Groups keep the
// order in which hosts first appear.
func histInputs(args []string) ([]histlog.Input, []histlog.Group, error) {
	var inputs []histlog.Input
	var groups []histlog.Group
	index := map[string]int{}
	add := func(host string, in histlog.Input) {
		i, ok := index[host]
		if !ok {
			i = len(groups)
			index[host] = i
			groups = append(groups, histlog.Group{Label: host})
		}
		groups[i].Inputs = append(groups[i].Inputs, in)
		inputs = append(inputs, in)
	}
	for _, arg := range args {
		label, dir := "", arg
		if i := strings.IndexByte(arg, '='); i > 0 {
			if _, err := os.Stat(arg); err != nil {
				label, dir = arg[:i], arg[i+1:]
			}
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			in := histlog.ParseInput(arg)
			host, _, _ := strings.Cut(in.Label, "/")
			add(host, in)
			continue
		}
		if label == "" {
			label = filepath.Base(filepath.Clean(dir))
		}
		logs, err := histLogsUnder(dir)
		if err != nil {
			return nil, nil, err
		}
		if len(logs) == 0 {
			return nil, nil, fmt.Errorf("%s: no histogram logs (*_hist.*.log) under it", dir)
		}
		for _, p := range logs {
			add(label, histlog.Input{Label: label + "/" + filepath.Base(histlog.LabelFromPath(p)), Path: p})
		}
	}
	return inputs, groups, nil
}

// histLogsUnder lists the histogram logs under dir, sorted.
func histLogsUnder(dir string) ([]string, error) {
	out, err := durable.VisibleFiles(dir, func(name string) bool {
		name = strings.TrimSuffix(name, ".gz")
		return strings.Contains(name, "_hist.") && strings.HasSuffix(name, ".log")
	})
	sort.Strings(out)
	return out, err
}

// histSummary prints the whole-run figures of every host and of the
// fleet (the summed histograms of all hosts), and names the slowest host
// by its highest percentile: hist merge --summary.
func histSummary(ctx context.Context, w io.Writer, groups []histlog.Group, cfg histlog.Config, format string, unit histlog.Unit) error {
	fs, err := histlog.Fleet(ctx, groups, cfg)
	if err != nil {
		return err
	}
	u := float64(unit)
	val := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v/u, 'f', 3, 64)
	}
	rows := append(append([]histlog.GroupSummary(nil), fs.Hosts...), fs.Fleet)
	top := len(fs.Percentiles) - 1
	// The slowest host of each direction, by the highest percentile asked.
	type slow struct {
		dir   histlog.Direction
		host  string
		v     float64
		ratio float64
	}
	var slowest []slow
	if top >= 0 {
		for _, d := range fs.Fleet.Dirs {
			if h, ratio, ok := fs.Slowest(d.Dir, top); ok {
				hd, _ := h.Dir(d.Dir)
				slowest = append(slowest, slow{d.Dir, h.Label, hd.Percentiles[top], ratio})
			}
		}
	}
	pname := func(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }
	switch format {
	case "json":
		type dirJSON struct {
			Direction   string              `json:"direction"`
			Samples     float64             `json:"samples"`
			Min         *float64            `json:"min"`
			Percentiles map[string]*float64 `json:"percentiles"`
			Max         *float64            `json:"max"`
		}
		type hostJSON struct {
			Host string    `json:"host"`
			Logs int       `json:"logs"`
			Dirs []dirJSON `json:"directions"`
		}
		num := func(v float64) *float64 {
			if math.IsNaN(v) {
				return nil
			}
			x := v / u
			return &x
		}
		conv := func(g histlog.GroupSummary) hostJSON {
			h := hostJSON{Host: g.Label, Logs: g.Logs}
			for _, d := range g.Dirs {
				dj := dirJSON{Direction: d.Dir.String(), Samples: d.Samples, Min: num(d.Min), Max: num(d.Max), Percentiles: map[string]*float64{}}
				for i, p := range fs.Percentiles {
					dj.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)] = num(d.Percentiles[i])
				}
				h.Dirs = append(h.Dirs, dj)
			}
			return h
		}
		out := struct {
			Unit    string     `json:"unit"`
			Hosts   []hostJSON `json:"hosts"`
			Fleet   hostJSON   `json:"fleet"`
			Slowest []any      `json:"slowest"`
		}{Unit: unit.String(), Fleet: conv(fs.Fleet), Slowest: []any{}}
		for _, h := range fs.Hosts {
			out.Hosts = append(out.Hosts, conv(h))
		}
		for _, s := range slowest {
			out.Slowest = append(out.Slowest, map[string]any{"direction": s.dir.String(), "host": s.host,
				"percentile": fs.Percentiles[top], "value": s.v / u, "ratio_to_median_host": s.ratio})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "csv":
		var b strings.Builder
		b.WriteString("host,direction,logs,samples,min")
		for _, p := range fs.Percentiles {
			b.WriteString("," + pname(p))
		}
		b.WriteString(",max\n")
		for _, g := range rows {
			for _, d := range g.Dirs {
				fmt.Fprintf(&b, "%s,%s,%d,%s,%s", csvField(g.Label), d.Dir, g.Logs, strconv.FormatFloat(d.Samples, 'f', -1, 64), val(d.Min))
				for _, v := range d.Percentiles {
					b.WriteString("," + val(v))
				}
				b.WriteString("," + val(d.Max) + "\n")
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "HOST\tDIR\tLOGS\tSAMPLES\tMIN")
	for _, p := range fs.Percentiles {
		fmt.Fprintf(tw, "\t%s", strings.ToUpper(pname(p)))
	}
	fmt.Fprintf(tw, "\tMAX\t\n")
	for _, g := range rows {
		for _, d := range g.Dirs {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%s", g.Label, d.Dir, g.Logs, d.Samples, val(d.Min))
			for _, v := range d.Percentiles {
				fmt.Fprintf(tw, "\t%s", val(v))
			}
			fmt.Fprintf(tw, "\t%s\t\n", val(d.Max))
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "latencies in %s; fleet: the histograms of %d hosts summed, not their percentiles averaged\n", unit, len(fs.Hosts))
	for _, s := range slowest {
		fmt.Fprintf(&b, "slowest host (%s %s): %s: %s %s, %.2fx the median host's\n", s.dir, pname(fs.Percentiles[top]),
			s.host, val(s.v), unit, s.ratio)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// csvField quotes a CSV field when it needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs interface{ Visit(func(*flag.Flag)) }, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
