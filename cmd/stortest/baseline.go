package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/report/page"
)

func init() {
	define("baseline diff",
		"[--format text|json|markdown|html] [--tolerance RULES] [--confidence C] [--run-spread S] [--strict] OLD NEW | --fleet DIR",
		"compare baselines (two files, or two directories matched by relative path; --fleet: each host of DIR/<host>/ against the other hosts, with the fleet's merged percentiles); exit 1 on a regression, 3 on an inconclusive comparison with --strict, 2 on an error",
		baselineDiff)
	define("baseline show",
		"[--format text|json] FILE...",
		"print what a baseline holds: fingerprint, job, throughput, latency statistics",
		baselineShow)
	define("baseline import-fio",
		"[--out DIR [--test NAME] [--force]] [--probe] FILE.json|-",
		"turn fio JSON or json+ output into baselines, one per job (stdout without --out)",
		baselineImport)
}

// parseArgs parses flags placed anywhere among the arguments
// (parseInterleaved); a bad flag is a usage error (exit status 2), never
// confused with a regression's 1.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return pos, err
}

// trouble is an error that is not a regression: exit status 2, as diff(1).
func trouble(err error) error { return &exitError{code: 2, msg: err.Error()} }

func baselineDiff(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	format := fs.String("format", "text", "output format: text, json, markdown (for a pull-request comment) or html (a self-contained page with charts)")
	tolerance := fs.String("tolerance", "", `rules applied after the defaults and the old baseline's own, e.g. "*.iops=5%,*.clat.p99=15%:2us,*.clat.p99.99=off,*.lat.p99=10%"`)
	spread := fs.String("run-spread", "", `run-to-run spread to assume of every metric before the old baselines' own runs measure it, e.g. "2%" for a quiet device; "0" assumes none; empty: the defaults per metric (10% for IOPS, up to 20% for p99.99)`)
	strict := fs.Bool("strict", false, "exit 3 when a comparison is inconclusive (and none regressed): too few samples or too noisy to tell")
	confidence := fs.Float64("confidence", regress.DefaultConfidence, "confidence level of the intervals")
	fleet := fs.Bool("fleet", false, "DIR holds one directory per host: compare each host's baselines with the other hosts' (pooled as runs of one baseline), name the slow hosts, and print the fleet's figures (percentiles of the merged histograms)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *fleet && len(pos) != 1:
		return fmt.Errorf("%w: --fleet: want one directory of host directories, got %d arguments", errUsage, len(pos))
	case !*fleet && len(pos) != 2:
		return fmt.Errorf("%w: want OLD and NEW, got %d arguments", errUsage, len(pos))
	case *fleet && *format == "html":
		return fmt.Errorf("%w: --fleet: --format html is for OLD NEW; see `stortest hist merge --format html` for a fleet's picture", errUsage)
	}
	if *format != "text" && *format != "json" && *format != "markdown" && *format != "html" {
		return fmt.Errorf("%w: --format %q: want text, json, markdown or html", errUsage, *format)
	}
	if !(*confidence > 0 && *confidence < 1) {
		return fmt.Errorf("%w: --confidence %v: want a level between 0 and 1, e.g. 0.95", errUsage, *confidence)
	}
	runSpread, err := parseSpread(*spread)
	if err != nil {
		return fmt.Errorf("%w: --run-spread: %v", errUsage, err)
	}
	flagRules, err := regress.ParseRules(*tolerance)
	if err != nil {
		return fmt.Errorf("%w: --tolerance: %v", errUsage, err)
	}
	if *fleet {
		reports, err := baselineFleet(pos[0], regress.Config{Confidence: *confidence, RunSpread: runSpread}, flagRules, *format, stdout, stderr)
		if err != nil {
			return trouble(err)
		}
		return diffStatus(reports, *strict, stderr)
	}
	pairs, onlyOld, onlyNew, err := baselinePairs(pos[0], pos[1])
	if err != nil {
		return trouble(err)
	}
	var reports []regress.Report
	var diffs []*page.Diff // for --format html
	for _, p := range pairs {
		old, err := baselines.Load(p.old)
		if err != nil {
			return trouble(err)
		}
		cur, err := baselines.Load(p.cur)
		if err != nil {
			return trouble(err)
		}
		// The tolerances the test recorded the baseline with, then the
		// command line's.
		cfg := regress.Config{Confidence: *confidence, RunSpread: runSpread}
		if cfg.Rules, err = regress.ParseRules(old.Tolerances); err != nil {
			return trouble(fmt.Errorf("%s: its tolerances: %v", p.old, err))
		}
		cfg.Rules = append(cfg.Rules, flagRules...)
		r := regress.Compare(old, cur, cfg)
		if p.name != "" {
			r.Name = p.name
		}
		reports = append(reports, r)
		diffs = append(diffs, &page.Diff{Base: old, Current: cur, Report: r, BaseLabel: "old", CurrentLabel: "new"})
	}
	switch *format {
	case "html":
		err = page.WriteDiff(stdout, htmlDiffTitle(pos[0], pos[1], onlyOld, onlyNew), diffs...)
	case "json":
		err = regress.WriteJSON(stdout, reports...)
	case "markdown":
		err = regress.WriteMarkdown(stdout, reports...)
		if err == nil && len(onlyOld)+len(onlyNew) > 0 {
			var b strings.Builder
			b.WriteString("\n")
			for _, n := range onlyOld {
				fmt.Fprintf(&b, "- only in the old baselines: `%s`\n", n)
			}
			for _, n := range onlyNew {
				fmt.Fprintf(&b, "- only in the new baselines: `%s`\n", n)
			}
			_, err = io.WriteString(stdout, b.String())
		}
	default:
		err = regress.WriteText(stdout, reports...)
		for _, n := range onlyOld {
			fmt.Fprintf(stdout, "only in %s: %s\n", pos[0], n)
		}
		for _, n := range onlyNew {
			fmt.Fprintf(stdout, "only in %s: %s\n", pos[1], n)
		}
	}
	if err != nil {
		return trouble(err)
	}
	if json := *format == "json"; !json && len(onlyOld)+len(onlyNew) > 0 {
		fmt.Fprintf(stderr, "stortest baseline diff: %d baseline(s) without a counterpart\n", len(onlyOld)+len(onlyNew))
	}
	return diffStatus(reports, *strict, stderr)
}

// diffStatus is baseline diff's exit: 1 when a job regressed, 3 when one
// is inconclusive under --strict (else said on stderr), 0 otherwise.
func diffStatus(reports []regress.Report, strict bool, stderr io.Writer) error {
	count := func(v regress.Verdict) int {
		n := 0
		for _, r := range reports {
			if r.Verdict == v {
				n++
			}
		}
		return n
	}
	inconclusive := count(regress.Inconclusive)
	switch {
	case count(regress.Regression) > 0:
		msg := fmt.Sprintf("%d of %d job(s) regressed", count(regress.Regression), len(reports))
		if inconclusive > 0 {
			msg += fmt.Sprintf(", %d inconclusive", inconclusive)
		}
		return &exitError{code: 1, msg: msg}
	case inconclusive > 0 && strict:
		return &exitError{code: exitInconclusive, msg: fmt.Sprintf("%d of %d job(s) inconclusive (--strict)", inconclusive, len(reports))}
	case inconclusive > 0:
		// Not a failure, but never silent: say so where a script's log
		// shows it, with what would decide it.
		fmt.Fprintf(stderr, "stortest baseline diff: %d of %d job(s) inconclusive: not a pass; --strict makes it exit %d\n",
			inconclusive, len(reports), exitInconclusive)
	}
	return nil
}

// parseSpread reads --run-spread: a percentage or fraction; "0" is none
// (Config.RunSpread < 0), "" the defaults (0).
func parseSpread(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := regress.ParseFraction(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a non-negative percentage or fraction", s)
	}
	if v == 0 {
		return -1, nil
	}
	return v, nil
}

// exitInconclusive is baseline diff's exit status for an inconclusive
// comparison under --strict: distinct from a regression's 1 and an
// error's 2, so a script can tell "slower" from "could not tell".
const exitInconclusive = 3

type baselinePair struct {
	name     string // the relative path without .json, for directories
	old, cur string
}

// baselinePairs matches two files, or the baselines of two directories by
// relative path; it also returns the relative paths found on one side
// only.
func baselinePairs(old, cur string) (pairs []baselinePair, onlyOld, onlyNew []string, err error) {
	oi, err := os.Stat(old)
	if err != nil {
		return nil, nil, nil, err
	}
	ci, err := os.Stat(cur)
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case !oi.IsDir() && !ci.IsDir():
		return []baselinePair{{old: old, cur: cur}}, nil, nil, nil
	case oi.IsDir() != ci.IsDir():
		return nil, nil, nil, fmt.Errorf("%s and %s: compare two files or two directories", old, cur)
	}
	a, err := baselineFiles(old)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := baselineFiles(cur)
	if err != nil {
		return nil, nil, nil, err
	}
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, rel := range a {
		inA[rel] = true
	}
	for _, rel := range b {
		inB[rel] = true
	}
	for _, rel := range a {
		if !inB[rel] {
			onlyOld = append(onlyOld, rel)
			continue
		}
		pairs = append(pairs, baselinePair{name: strings.TrimSuffix(rel, ".json"), old: filepath.Join(old, rel), cur: filepath.Join(cur, rel)})
	}
	for _, rel := range b {
		if !inA[rel] {
			onlyNew = append(onlyNew, rel)
		}
	}
	if len(pairs) == 0 {
		return nil, onlyOld, onlyNew, fmt.Errorf("no baseline in %s has a counterpart in %s", old, cur)
	}
	return pairs, onlyOld, onlyNew, nil
}

// baselineFiles lists the baselines under dir by relative path (slash
// separated), sorted; hidden temporary files and histories are not
// baselines.
func baselineFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !baselines.IsBaselineFile(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

func baselineShow(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	format := fs.String("format", "text", "output format: text (a summary) or json (the file, re-encoded)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: want at least one baseline file", errUsage)
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("%w: --format %q: want text or json", errUsage, *format)
	}
	for i, path := range pos {
		b, err := baselines.Load(path)
		if err != nil {
			return err
		}
		if *format == "json" {
			err = baselines.Encode(stdout, b)
		} else {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "%s\n", path)
			err = b.WriteSummary(stdout)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func baselineImport(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	out := fs.String("out", "", "write DIR/[TEST/]JOB.json per job (default: print the baselines to stdout)")
	test := fs.String("test", "", "with --out: the Go test name the baselines belong to (TestX or TestX/sub), as testdata/baselines/TestX/JOB.json")
	force := fs.Bool("force", false, "with --out: replace existing baselines (default: refuse)")
	probe := fs.Bool("probe", false, "fingerprint each job's filename on this host (device model, serial, firmware, kernel)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one fio JSON output (or - for stdin), got %d arguments", errUsage, len(pos))
	}
	if *out == "" && (*test != "" || *force) {
		return fmt.Errorf("%w: --test and --force need --out", errUsage)
	}
	r, name := io.Reader(os.Stdin), "-"
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, pos[0]
	}
	bs, err := baselines.ImportFio(r, name)
	if err != nil {
		return err
	}
	for _, b := range bs {
		if *probe {
			if b.Job.Filename == "" {
				fmt.Fprintf(stderr, "stortest baseline import-fio: job %s: no filename to fingerprint\n", b.Name)
			} else if fp, err := baselines.Probe(b.Job.Filename, baselines.ProbeOptions{Engine: b.Fingerprint.Engine}); err != nil {
				fmt.Fprintf(stderr, "stortest baseline import-fio: job %s: %v\n", b.Name, err)
			} else {
				fp.Version = b.Fingerprint.Version
				b.Fingerprint = fp
			}
		}
		if *out == "" {
			if err := baselines.Encode(stdout, b); err != nil {
				return err
			}
			continue
		}
		path := baselines.Path(*out, *test, b.Name)
		if *force {
			err = baselines.WriteFile(path, b)
		} else {
			err = baselines.Create(path, b)
		}
		if errors.Is(err, iofs.ErrExist) {
			return fmt.Errorf("%s exists: pass --force to replace it", path)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	return nil
}
