package histlog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"stortest.dev/internal/kernelfs"
)

// A merge reads its logs with every one of them open. When there are
// more logs than the process may open at once, it merges in passes:
// each pass opens the partial sums of the passes before it (partial.go)
// and a group of logs, adds them in input order, and writes the new
// partial sums; the last pass adds the last group and writes the
// output. A chain, not a tree: floating-point addition is not
// associative, and a chain adds the logs in the order the one-pass merge
// adds them, so the output is the same to the bit. Every pass shares
// the one-pass merge's grid, window and read-ahead, learned from all the
// logs' first rows, so rows land in the same quanta.

// Pass describes one pass of a merge in passes, for Config.Progress
// and FioOptions.Progress: the pass adds the logs [First, First+Logs)
// to the sums of the passes before it.
type Pass struct {
	N, Passes   int // this pass (from 1) of Passes
	First, Logs int // the inputs it reads, by index
	Inputs      int // all the merge's inputs
	// Files is how many files a pass may hold open: the limit on open
	// files, less those already open (Open, -1 if unknown) and
	// reservedFiles. Limit is 0 where there is none.
	Files, Limit, Open int
}

// reservedFiles are left to the rest of the process while a merge
// holds its files: the sink's output, a log, a concurrent goroutine's.
const reservedFiles = 8

// fileBudget is how many files a merge may hold open at once.
type fileBudget struct {
	limit, open int // RLIMIT_NOFILE (0: none known) and files open (-1: unknown)
	avail       int
}

// forceFiles, when positive, replaces the files a merge may hold open
// (tests merge in passes without lowering the process's limit).
var forceFiles int

func currentFileBudget() fileBudget {
	b := fileBudget{limit: raiseFileLimit(), open: openFiles()}
	switch {
	case forceFiles > 0:
		b.avail = forceFiles
	case b.limit == 0:
		b.avail = math.MaxInt // only open's EMFILE tells
	case b.open < 0:
		b.avail = b.limit - 3 /* stdin, stdout, stderr */ - reservedFiles
	default:
		b.avail = b.limit - b.open - reservedFiles
	}
	return b
}

// openFiles counts the process's open descriptors (-1 without /proc).
func openFiles() int {
	f, err := os.Open(kernelfs.Default().ProcPath("self", "fd"))
	if err != nil {
		return -1
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return -1
	}
	return len(names) - 1 // not f itself
}

// headWorkers bounds the workers reading the logs' first rows: each
// holds up to two files (readHead reopens a log whose last row is
// malformed).
func (b fileBudget) headWorkers(workers int) int {
	return max(min(workers, b.avail/2), 1)
}

// span is the inputs [lo, hi).
type span struct{ lo, hi int }

// planPasses splits n inputs into the groups of successive passes when
// at most files may be open at once. A pass holds its group, the
// partial sums it reads (all passes but the first) and writes (all but
// the last) and, with side, the per-log completions it writes (all but
// the last) or reads (the last, one file per pass before it). Groups
// are as even as the files allow. It returns nil if no plan fits.
func planPasses(n, files int, side bool) []span {
	if n <= files {
		return []span{{0, n}}
	}
	s := 0
	if side {
		s = 1
	}
	capOf := func(k, passes int) int {
		switch k {
		case 0:
			return files - 1 - s
		case passes - 1:
			return files - 1 - s*(passes-1)
		}
		return files - 2 - s
	}
	for passes := 2; passes <= n; passes++ {
		caps := make([]int, passes)
		total := 0
		for k := range caps {
			caps[k] = capOf(k, passes)
			if caps[k] < 1 {
				return nil
			}
			total += caps[k]
		}
		if total < n {
			continue
		}
		// The smallest groups first, each its share of what is left.
		order := make([]int, passes)
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(caps[a], caps[b]) })
		sizes := make([]int, passes)
		left := n
		for j, k := range order {
			r := passes - j
			sizes[k] = min(caps[k], (left+r-1)/r)
			left -= sizes[k]
		}
		plan := make([]span, passes)
		lo := 0
		for k, sz := range sizes {
			plan[k] = span{lo, lo + sz}
			lo += sz
		}
		return plan
	}
	return nil
}

// passes merges inputs in passes when they do not fit the file budget,
// else in one.
type passes struct {
	tmpl     *engine // the grid and window every pass shares
	inputs   []Input
	ropt     ReaderOptions
	shifts   []int                  // merged column = column >> shifts[i]; nil: none
	prepare  func(s *source, i int) // sets input i's own fields after it is opened
	dirs     []Direction            // the windows the partial sums keep
	byInput  bool                   // keep each log's completions in side files
	tempDir  string
	budget   fileBudget
	progress func(Pass)
}

// tooManyFiles is a pass's open failing with EMFILE after held files.
type tooManyFiles struct {
	held int
	err  error
}

func (e *tooManyFiles) Error() string { return e.err.Error() }
func (e *tooManyFiles) Unwrap() error { return e.err }

// maxReplans bounds how often a merge starts over with fewer files
// after running out of descriptors the limit said it had.
const maxReplans = 4

// run runs the passes; last is the last pass's output, given the opened
// engine (with the partial sums of the passes before) and their side
// files (with byInput), whose logs come before the engine's sources.
func (p *passes) run(ctx context.Context, last func(e *engine, sides []*sideReader) error) error {
	files := 0 // inputs opened from a path hold one descriptor each
	for _, in := range p.inputs {
		if in.Open == nil {
			files++
		}
	}
	avail := p.budget.avail
	for replan := 0; ; replan++ {
		plan := []span{{0, len(p.inputs)}}
		if files > avail {
			plan = planPasses(len(p.inputs), avail, p.byInput)
		}
		if plan == nil {
			with := ""
			if p.byInput {
				with = " with per-input completions (the last pass holds a file per pass)"
			}
			return fmt.Errorf("histlog: %d logs: %w: %s is too few to merge in passes%s; raise the limit on open files (ulimit -n)",
				len(p.inputs), syscall.EMFILE, p.budget.describe(avail), with)
		}
		err := p.runPlan(ctx, plan, avail, last)
		var tmf *tooManyFiles
		if !errors.As(err, &tmf) {
			return err
		}
		if replan < maxReplans && tmf.held >= 3 && tmf.held < avail {
			avail = tmf.held // what could be opened; the next one failed
			continue
		}
		return fmt.Errorf("%w (%s, %d held by the merge); raise the limit on open files (ulimit -n)",
			err, p.budget.describe(avail), tmf.held)
	}
}

// describe says how many files a merge may hold and why.
func (b fileBudget) describe(avail int) string {
	if b.limit == 0 {
		return fmt.Sprintf("room for %d files at once", avail)
	}
	return fmt.Sprintf("room for %d files at once (limit %d, %d open, %d reserved)", avail, b.limit, b.open, reservedFiles)
}

func (p *passes) runPlan(ctx context.Context, plan []span, avail int, last func(*engine, []*sideReader) error) error {
	if len(plan) == 1 {
		e, err := p.openPass(plan[0], "", 0)
		defer e.close()
		if err != nil {
			return err
		}
		return last(e, nil)
	}
	dir, err := os.MkdirTemp(p.tempDir, "histlog-merge-")
	if err != nil {
		return fmt.Errorf("histlog: merge in passes: %w", err)
	}
	defer os.RemoveAll(dir)
	prev := ""
	var sides []*sideReader
	defer func() {
		for _, s := range sides {
			s.close()
		}
	}()
	for k, g := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.progress != nil {
			p.progress(Pass{N: k + 1, Passes: len(plan), First: g.lo, Logs: g.hi - g.lo, Inputs: len(p.inputs),
				Files: avail, Limit: p.budget.limit, Open: p.budget.open})
		}
		if k == len(plan)-1 {
			for j, g := range plan[:k] {
				if !p.byInput {
					break
				}
				s, err := openSide(filepath.Join(dir, fmt.Sprintf("side.%d", j)), g.hi-g.lo)
				if err != nil {
					return asTooManyFiles(err, len(sides))
				}
				sides = append(sides, s)
			}
			e, err := p.openPass(g, prev, len(sides))
			defer e.close()
			if err != nil {
				return err
			}
			return last(e, sides)
		}
		next := filepath.Join(dir, fmt.Sprintf("partial.%d", k))
		side := ""
		if p.byInput {
			side = filepath.Join(dir, fmt.Sprintf("side.%d", k))
		}
		if err := p.sumPass(ctx, g, prev, next, side); err != nil {
			return err
		}
		if prev != "" {
			os.Remove(prev) // the disk holds one partial file at a time, two during a pass
		}
		prev = next
	}
	panic("unreachable")
}

// openPass returns an engine with inputs g open, after the partial sums
// in file prev ("" for none), the caller holding held files already.
// The engine is to be closed, even with an error.
func (p *passes) openPass(g span, prev string, held int) (*engine, error) {
	e := *p.tmpl
	if prev != "" {
		part, err := openPartial(prev, e.cols, p.dirs, e.W)
		if err != nil {
			return &e, asTooManyFiles(err, held)
		}
		e.part = part
		held++
	}
	if err := e.open(p.inputs, g.lo, g.hi, p.ropt, p.shifts); err != nil {
		for _, s := range e.srcs {
			if s.rc != nil {
				held++
			}
		}
		return &e, asTooManyFiles(err, held)
	}
	for _, s := range e.srcs {
		p.prepare(s, s.idx)
	}
	return &e, nil
}

// asTooManyFiles marks err as a *tooManyFiles if it is EMFILE, the
// merge holding held files when it failed.
func asTooManyFiles(err error, held int) error {
	if errors.Is(err, syscall.EMFILE) {
		return &tooManyFiles{held: held, err: err}
	}
	return err
}

// sumPass adds inputs g to the partial sums in file prev ("" for none)
// and writes the sums to file next and, with side, each log's
// completions to file side.
func (p *passes) sumPass(ctx context.Context, g span, prev, next, side string) (err error) {
	e, err := p.openPass(g, prev, 0)
	defer e.close()
	if err != nil {
		return err
	}
	held := g.hi - g.lo
	if prev != "" {
		held++
	}
	out, err := createPartial(next, e.cols, p.dirs)
	if err != nil {
		return asTooManyFiles(err, held)
	}
	defer out.close()
	var sw *sideWriter
	if side != "" {
		if sw, err = createSide(side); err != nil {
			return asTooManyFiles(err, held+1)
		}
		defer sw.close()
	}
	tot := make([]float64, e.cols)
	err = e.run(ctx, func(w0, w1 int) error {
		for q := w0; q < w1; q++ {
			out.quantum(e.cover(q, w0))
			for _, d := range p.dirs {
				var lo, hi int
				if e.mode == modeFio {
					lo, hi = e.sumFio(tot, q-w0)
				} else {
					lo, hi = e.sumNative(tot, d, q-w0)
				}
				out.window(tot, lo, hi)
				if lo <= hi {
					clear(tot[lo : hi+1])
				}
			}
			for _, s := range e.srcs {
				if sw == nil {
					break
				}
				for d := range Direction(NumDirections) {
					sw.add(s.samples(d, q-w0))
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if sw != nil {
		if err := sw.finish(); err != nil {
			return err
		}
	}
	lastT, late := e.lastTime(), 0
	if e.part != nil {
		late = e.part.late
	}
	for _, s := range e.srcs {
		late += s.late
	}
	return out.finish(lastT, late)
}
