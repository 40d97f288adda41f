package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"stortest.dev/baselines"
	"stortest.dev/history"
	"stortest.dev/regress"
)

func init() {
	define("history changes",
		"[--metric M[,M...]] [--format text|markdown|json] [--tolerance RULES] [--alpha P] [--min-runs N] [--min-change PCT] DIR",
		"find the change points of every metric of a history (E-divisive means) and what changed at each; exit 1 when a latest segment regressed, 2 on an error",
		historyChanges)
	define("history add",
		"[--test NAME] DIR BASELINE...",
		"append runs to a history: baseline files, or directories of them (as baseline import-fio --out writes), each an append-only file of its own",
		historyAdd)
}

// metricList collects --metric, repeated or comma-separated.
type metricList []string

func (m *metricList) String() string { return strings.Join(*m, ",") }

func (m *metricList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*m = append(*m, p)
		}
	}
	return nil
}

var _ flag.Value = (*metricList)(nil)

func historyChanges(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	var metrics metricList
	known := history.Metrics()
	read := known[:len(known)/len(baselines.DirNames)] // the first direction's
	fs.Var(&metrics, "metric", `metrics to search, patterns allowed ("read.clat.p99", "*.iops"), repeated or comma-separated; default: all (`+strings.Join(read, ", ")+", and write and trim's)")
	format := fs.String("format", "text", "output format: text, markdown (for a pull-request comment or job summary) or json")
	tolerance := fs.String("tolerance", "", `rules after the defaults deciding which changes are regressions, e.g. "*.clat.p99=5%,*.clat.mean=10%"`)
	alpha := fs.Float64("alpha", history.DefaultAlpha, "p-value below which a candidate is a change point, shared among the metrics searched")
	perMetric := fs.Bool("per-metric", false, "test each metric at --alpha instead of sharing it among the metrics searched (more change points, more false ones)")
	minRuns := fs.Int("min-runs", history.DefaultMinSize, "fewest runs of a segment")
	minChange := fs.String("min-change", "", `smallest change reported, e.g. "2%" (on a long history a shift far below any tolerance is significant); default: every significant change`)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one history directory, got %d arguments", errUsage, len(pos))
	}
	if *format != "text" && *format != "json" && *format != "markdown" {
		return fmt.Errorf("%w: --format %q: want text, markdown or json", errUsage, *format)
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("%w: --alpha %v: want a p-value between 0 and 1, e.g. 0.001", errUsage, *alpha)
	}
	if *minRuns < 2 {
		return fmt.Errorf("%w: --min-runs %d: want at least 2", errUsage, *minRuns)
	}
	minCh, err := parseSpread(*minChange) // a percentage or fraction, as --run-spread
	if err != nil {
		return fmt.Errorf("%w: --min-change: %v", errUsage, err)
	}
	rules, err := regress.ParseRules(*tolerance)
	if err != nil {
		return fmt.Errorf("%w: --tolerance: %v", errUsage, err)
	}
	for _, m := range metrics {
		if !matchesAny(m, known) {
			return fmt.Errorf("%w: --metric %q matches none of %s", errUsage, m, strings.Join(known, ", "))
		}
	}
	runs, err := history.Load(pos[0])
	if err != nil {
		return trouble(err)
	}
	rep, err := history.Changes(runs, history.Config{Metrics: metrics, Rules: rules, MinChange: max(minCh, 0),
		PerMetric: *perMetric, Split: history.SplitConfig{Alpha: *alpha, MinSize: *minRuns}})
	if err != nil {
		return trouble(err)
	}
	switch *format {
	case "json":
		err = rep.WriteJSON(stdout)
	case "markdown":
		err = rep.WriteMarkdown(stdout)
	default:
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return trouble(err)
	}
	if rep.Verdict() == regress.Regression {
		return &exitError{code: 1, msg: "latest segment regressed: " + strings.Join(rep.Regressions(), ", ")}
	}
	return nil
}

// matchesAny reports whether pattern matches one of names.
func matchesAny(pattern string, names []string) bool {
	for _, n := range names {
		if ok, _ := path.Match(pattern, n); ok {
			return true
		}
	}
	return false
}

func historyAdd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	test := fs.String("test", "", "the Go test the runs belong to (TestX or TestX/sub): DIR/TestX/JOB/...; default: the directories under a baseline directory argument, else none")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("%w: want a history directory and at least one baseline", errUsage)
	}
	// Every argument is read before anything is appended: a bad one
	// adds nothing, rather than the runs before it.
	type run struct {
		test string
		b    *baselines.Baseline
	}
	var runs []run
	for _, arg := range pos[1:] {
		files, tests, err := addFiles(arg, *test)
		if err != nil {
			return trouble(err)
		}
		for i, f := range files {
			b, err := baselines.Load(f)
			if err != nil {
				return trouble(err)
			}
			runs = append(runs, run{tests[i], b})
		}
	}
	for _, r := range runs {
		p, err := history.Append(pos[0], r.test, r.b)
		if err != nil {
			return trouble(err)
		}
		fmt.Fprintf(stdout, "added %s\n", p)
	}
	return nil
}

// addFiles returns the baseline files an argument of history add names,
// with the test of each: a file is itself, of the test given; a
// directory (whatever its name) is the baselines under it, each of the
// test its directories name after the one given. A directory without
// any is an error: adding nothing is never what was meant.
func addFiles(arg, test string) (files, tests []string, err error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, []string{test}, nil
	}
	rels, err := baselineFiles(arg)
	if err != nil {
		return nil, nil, err
	}
	if len(rels) == 0 {
		return nil, nil, fmt.Errorf("%s: a directory with no baselines under it (*.json files, as baseline import-fio --out writes them)", arg)
	}
	for _, rel := range rels {
		files = append(files, filepath.Join(arg, filepath.FromSlash(rel)))
		t := test
		// The directories are the test's name, escaped as
		// baselines.Path escapes it (%XX).
		if d := path.Dir(rel); d != "." {
			name, err := url.PathUnescape(d)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", filepath.Join(arg, rel), err)
			}
			t = strings.Trim(t+"/"+name, "/")
		}
		tests = append(tests, t)
	}
	return files, tests, nil
}
