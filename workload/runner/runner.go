package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/clock"
	"stortest.dev/engines"
	"stortest.dev/fio"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
	"stortest.dev/workload/validate"
)

// Run executes job: NumJobs clones, each on its own goroutine locked to an
// OS thread, each with its own file descriptor, engine, buffers and
// histograms (nothing shared per I/O but the atomic counters of a flow,
// Job.Flow). It returns when every clone has finished or ctx is
// cancelled; a cancelled run returns its partial results with Canceled
// set and a nil error. The error is for failures before any I/O (bad job,
// missing target); failures during the run are in each JobResult.Err.
// I/Os that do not complete within Options.Grace of the end of a job's
// runtime, or of the cancellation, are not waited for: the job's result
// lists them (JobResult.Outstanding) and its Err is a StallError.
func Run(ctx context.Context, job workload.Job, opts workload.Options) (*workload.Result, error) {
	return RunJobs(ctx, []workload.Job{job}, opts)
}

// RunJobs runs several jobs at once, as fio runs the sections of a job
// file; the result lists every clone of every job in order.
func RunJobs(ctx context.Context, jobs []workload.Job, opts workload.Options) (*workload.Result, error) {
	if len(jobs) == 0 {
		return nil, fmt.Errorf("workload: no jobs")
	}
	total := 0
	for i := range jobs {
		jobs[i] = jobs[i].Normalized()
		if err := validate.Job(&jobs[i]); err != nil {
			return nil, err
		}
		if total += jobs[i].NumJobs; total > workload.MaxJobs {
			return nil, fmt.Errorf("workload: job %s: %w", jobs[i].Name, workload.TooManyJobs(total))
		}
	}
	if opts.Faults != nil {
		if err := opts.Faults.Validate(); err != nil {
			return nil, fmt.Errorf("workload: %w", err)
		}
	}
	if _, err := clock.Init(); err != nil {
		return nil, fmt.Errorf("workload: clock: %w", err)
	}
	groups := opts.HistGroups
	if groups == 0 {
		groups = latency.LongGroups
	}
	layout, err := latency.NewLayout(groups)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	res := &workload.Result{}
	var workers []*worker
	closeAll := func() {
		for _, w := range workers {
			if w.detached {
				w.closeLogs() // the job's goroutine frees the rest once the kernel lets go
				continue
			}
			w.close()
		}
	}
	grace := opts.GracePeriod()
	var longest time.Duration
	flows := flowGroups{}
	seq := newSequence(jobs)
	// setup prepares a clone's target and worker. A clone that waits for
	// earlier jobs (stonewall, wait_for) and takes its size from a file
	// that is not there yet, or is empty, is set up when its turn comes,
	// as fio opens a job's files when it starts: the earlier jobs write
	// the file.
	setup := func(w *worker, job workload.Job, tr *replayTrace, clone, jobNum int) error {
		if job.FillDevice {
			var err error
			if job, err = fillSize(job); err != nil {
				return err
			}
		}
		if job.OffsetPercent > 0 {
			job = withOffsetOfPercent(job)
		}
		if cj, names := multiClone(forClone(job, clone), clone, jobNum); names != nil {
			if err := prepareFiles(ctx, cj, names); err != nil {
				return err
			}
		} else if err := prepareTarget(ctx, cj); err != nil {
			return err
		}
		if err := w.init(job, clone, jobNum, layout, opts); err != nil {
			return err
		}
		if tr != nil {
			w.src.trace = &replayCursor{tr: tr}
		}
		w.src.flow = flows.member(job.Flow)
		return nil
	}
	var late []func() error // by worker; nil when set up already
	clones := 0
	for _, job := range jobs {
		clones += job.NumJobs
	}
	// Every clone's job, as it runs it, is known before any is set up,
	// so that CheckFile sees every file before the first one is touched.
	type cloneJob struct {
		job workload.Job
		tr  *replayTrace
	}
	planned := make([][]cloneJob, len(jobs))
	var writers []verifyWriter // the clones writing verified blocks (verify_run.go)
	for k, job := range jobs {
		for i := range job.NumJobs {
			job, tr, err := withReplay(job)
			if err != nil {
				return nil, err
			}
			job = withDefaultFile(job, i)
			if opts.CheckFile != nil && !opensNoFile(&job) {
				names := []string{job.Filename}
				if job.MultiFiles() {
					names = fileNames(&job, i)
				}
				for _, name := range names {
					if err := opts.CheckFile(&job, name); err != nil {
						return nil, err
					}
				}
			}
			planned[k] = append(planned[k], cloneJob{job, tr})
			writers = addWriter(writers, &job, i)
		}
	}
	if len(writers) < 2 {
		writers = nil // no other job can have overwritten a block
	}
	for k, job := range jobs {
		longest = max(longest, job.RampTime+job.Runtime)
		first := len(workers)
		for i := range job.NumJobs {
			job, tr := planned[k][i].job, planned[k][i].tr
			w := &worker{clones: clones, writers: writers, thread: fioThread(first, i, job.NumJobs)}
			jobNum := len(workers) + 1
			if len(seq.deps[k]) > 0 && fileLater(job) {
				w.job, w.opts = job, opts
				w.res = workload.NewJobResult(job, i, layout)
				late = append(late, func() error { return setup(w, job, tr, i, jobNum) })
			} else {
				if err := setup(w, job, tr, i, jobNum); err != nil {
					closeAll()
					return nil, err
				}
				late = append(late, nil)
			}
			workers = append(workers, w)
			res.Jobs = append(res.Jobs, w.res)
		}
	}
	defer closeAll()

	// Synchronous engines block their thread in the kernel holding its P
	// (engines use raw syscalls, as fio's threads simply block): give each
	// worker a P (and each thread of offload and posixaio), and one to
	// spare for the rest, for the run.
	// Not restored while a job's thread may still be blocked in the
	// kernel (stall.go): the change stops the world, which waits for it.
	if want := len(workers) + 1 + extraThreads(workers); want > runtime.GOMAXPROCS(0) {
		old := runtime.GOMAXPROCS(want)
		defer func() {
			for _, w := range workers {
				if w.detached {
					return
				}
			}
			runtime.GOMAXPROCS(old)
		}()
	}

	// Each clone has its own stop flag: cancellation sets them all,
	// exitall those of the jobs it ends.
	stops := make([]atomic.Bool, len(workers))
	running := make([]atomic.Bool, len(workers))
	unhook := context.AfterFunc(ctx, func() {
		for k := range stops {
			stops[k].Store(true)
		}
	})
	defer unhook()
	exitGroup := exitGroups(jobs)
	exitAll := func(k int) {
		j := &workers[k].job
		for i := range workers {
			switch {
			case i == k:
			case j.ExitWhat == "all",
				j.ExitWhat == "stonewall" && running[i].Load(),
				(j.ExitWhat == "" || j.ExitWhat == "group") && exitGroup[seq.jobOf[i]] == exitGroup[seq.jobOf[k]]:
				stops[i].Store(true)
			}
		}
	}

	// No collection may be under way when a job first blocks in the
	// kernel (stall.go: holdGC); each job's goroutine holds it off too,
	// for as long as it may be there.
	holdGCNow()
	defer releaseGC()
	start := clock.Now()
	// Each job hands its result over once, from its own goroutine or,
	// when that is blocked in the kernel past the grace period, from
	// watch: the run waits for the results, not for the goroutines.
	handed := make(chan int, len(workers))
	for k, w := range workers {
		w.stop = &stops[k]
		w.grace = grace
		w.takenDone = make(chan struct{})
		var once sync.Once
		w.handOff = func() {
			once.Do(func() {
				running[k].Store(false)
				if w.job.ExitAll {
					exitAll(k)
				}
				w.gate.Store(gateDone)
				seq.finished(k)
				handed <- k
			})
		}
		go func() {
			defer w.handOff()
			t := seq.wait(ctx, k, start)
			if late[k] != nil {
				if err := late[k](); err != nil {
					w.res.Err = err
					return
				}
			}
			running[k].Store(true)
			w.run(t)
		}()
	}
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if opts.Progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			reportProgress(jobs[0].RampTime, longest, workers, start, done, opts.Progress)
		}()
	}
	tick := time.NewTicker(watchTick)
	for left := len(workers); left > 0; {
		select {
		case <-handed:
			left--
		case <-tick.C:
			watch(workers, grace, clock.Now())
		}
	}
	tick.Stop()
	close(done)
	pwg.Wait()
	if ctx.Err() != nil {
		for _, w := range workers {
			w.res.Canceled = true
		}
	}
	return res, nil
}

// worker runs one job clone. Every field is owned by the worker's
// goroutine except pub, which the progress reporter reads.
type worker struct {
	job    workload.Job
	thread int // fio's number of the clone's thread in the run, from 0 (fioThread)
	opts   workload.Options
	res    *workload.JobResult
	file   *os.File
	// more and names are a job of several files' further files and
	// every file's name (files_run.go); nil for one file.
	more  []*os.File
	names []string
	// unlinkedAt is the loop whose files unlink_each_loop made last.
	unlinkedAt int64
	eng        engines.Engine
	bufs       *engines.Buffers
	src        *ioSource
	stop       *atomic.Bool
	lbs        int
	ss         *steadyRun // nil without steady-state options
	minRate    *minRate   // nil without rate_min and rate_iops_min
	lat        *latTarget // nil without latency_target
	// files are a file engine's files (FlagFileOps); fileOps records
	// latency as fio does for them: the file's call as clat, no lat.
	files   engines.FileSet
	fileOps bool

	units  []engines.Unit
	free   []*engines.Unit // units ready for use
	staged []*engines.Unit // queued, waiting for Commit
	infl   int             // committed, not reaped

	measureStart int64 // ns: end of ramp
	deadline     int64 // ns: runtime limit, 0 for none
	ended        bool  // no more I/O will be issued
	lastDone     int64 // ns: last completion

	// Per-slice sampling (SliceInterval).
	nextSlice  int64
	sliceIOs   [workload.NumDirs]uint64
	sliceBytes [workload.NumDirs]uint64

	// Per-second sampling.
	nextTick  int64
	tickIOs   [workload.NumDirs]uint64
	tickBytes [workload.NumDirs]uint64
	clatPrev  [workload.NumDirs]*latency.Histogram
	clatDelta [workload.NumDirs]*latency.Histogram
	clatNow   [workload.NumDirs]*latency.Histogram // clats' array
	clatArena []byte                               // backs the per-second clat samples (secondClat)

	hist       *histLog         // write_hist_log, nil when off
	logs       *ioLogs          // write_lat_log, write_bw_log, write_iops_log; nil when off
	iolog      *fio.IOLogWriter // write_iolog; nil when off
	iologPhase int64            // the phase write_iolog last logged (logIO)
	prio       *prioPicker      // cmdprio options; nil when off
	syncUnit   engines.Unit     // fsync's own unit
	syncState  syncs            // fsync, fdatasync, sync_file_range: which is due
	held       bool             // reap before issuing more (rate limit, drain)
	sinceThink int              // I/Os issued since the last thinktime
	clones     int              // job clones in the run (dedupe_global's spread)
	writers    []verifyWriter   // the run's writers of verified blocks (verify_run.go)

	measuring bool        // past ramp_time (and latency_target's search)
	ru0       unix.Rusage // the thread's usage when measuring started
	ramp      rampRun     // what ramp_time did (ramp_run.go)

	// Stalls (stall.go). gate is what the job's goroutine is doing, for
	// the run's takeover; gateQueue and gateCommit say which engine calls
	// are marked (those that may block in the kernel); abort is set by
	// the run when it stops waiting; endBy is the deadline plus the grace
	// period (0: no runtime), set once the job starts.
	gate                  atomic.Int32
	gateQueue, gateCommit bool
	gated                 bool // the engine moves data: its syncs are marked too
	abort                 atomic.Bool
	endBy                 atomic.Int64
	grace                 time.Duration
	stalled               bool  // a wait ended by abort
	stallGate             int32 // gateSync when the stalled wait was a sync's
	endedAt               int64 // ns: when the runtime's end or the stop ended the job's issuing
	endAt                 int64 // ns: the end of the runtime of a job given up on
	// handOff gives the result to the run, once; takenDone is closed by
	// the run once it has read what it needs of a job it took over.
	handOff   func()
	takenDone chan struct{}
	// detached: the run does not close the engine, buffers and file, the
	// job's goroutine does once the kernel returns its units; foreign:
	// the result is finished on the run's goroutine (no CPU figures, no
	// OnSecond).
	detached, foreign bool
	// The run's own (watch): when it first saw the stop flag, when it
	// set abort, and that it is done with this job.
	stopSeen, abortAt int64
	watchDone         bool

	pub published
}

// published are the counters the progress reporter reads.
type published struct {
	ios   [workload.NumDirs]atomic.Uint64
	bytes [workload.NumDirs]atomic.Uint64
}

func newWorker(job workload.Job, clone, jobNum int, layout latency.Layout, opts workload.Options) (*worker, error) {
	w := &worker{}
	if err := w.init(job, clone, jobNum, layout, opts); err != nil {
		return nil, err
	}
	return w, nil
}

// init sets w up for job's clone; a deferred worker (see RunJobs) keeps
// the result it already has.
func (w *worker) init(job workload.Job, clone, jobNum int, layout latency.Layout, opts workload.Options) error {
	w.job, w.opts = job, opts
	if w.res == nil {
		w.res = workload.NewJobResult(job, clone, layout)
	}
	job = forClone(job, clone) // the result keeps the job as given
	job, w.names = multiClone(job, clone, jobNum)
	w.job = job
	for d := range workload.NumDirs {
		w.clatPrev[d] = latency.New(layout)
		w.clatDelta[d] = latency.New(layout)
	}
	w.res.Slices = make([]workload.Slice, 0, sliceRoom(job.Runtime))
	ss, err := newSteadyRun(job, layout, opts)
	if err != nil {
		return err
	}
	w.ss = ss

	// The null engine needs no file, as in fio: its region is the size;
	// nor do cpuio and the file engines (setupNoFile).
	var f *os.File
	var size int64
	w.lbs = 512
	if opensNoFile(&job) {
		if job, size, err = w.setupNoFile(job, clone); err != nil {
			return err
		}
		w.job = job
	} else if w.names != nil {
		// Several files: the pattern sizes their regions.
		if err := w.openFiles(&job, w.names); err != nil {
			w.closeIO()
			return err
		}
		f = w.file
		if lbs, err := engines.LogicalBlockSize(f); err == nil && lbs > 0 {
			w.lbs = lbs
		}
	} else {
		var err error
		if f, err = engines.OpenFileFlags(job.Filename, writes(&job), job.Direct, syncFlag(&job)); err != nil {
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
		w.file = f
		if lbs, err := engines.LogicalBlockSize(f); err == nil && lbs > 0 {
			w.lbs = lbs
		}
		if size, err = engines.Size(f); err != nil {
			f.Close()
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	if job.SizePercent > 0 && f != nil {
		job.Size, job.SizePercent = sizeOfPercent(&job, size), 0
		w.job = job
	}
	if job.FillDevice && size < job.Offset+job.Size {
		size = 0 // a file that grows until the file system is full
	}
	if job.FileAppend && f != nil && isRegular(f) {
		job.Offset, size = size, 0 // file_append: a region after the end, growing the file
		w.job = job
	}
	src, err := newIOSource(job, clone, jobNum, size)
	if err != nil {
		w.close()
		return fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	w.src = src
	src.writers = w.writers
	if f != nil && !job.CreateOnly {
		if err := w.prepareCaches(size); err != nil {
			w.close()
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	if opts.BeforeVerify != nil {
		src.beforeVerify = func() { opts.BeforeVerify(w.res) }
	}
	src.stopOnMismatch = !opts.ContinueOnError && job.ContinueOnError&workload.ContinueVerify == 0
	maxBS := int(job.MaxBlockSize())
	if job.Direct && maxBS%w.lbs != 0 {
		w.close()
		return fmt.Errorf("workload: job %s: block size %d is not a multiple of %s's logical block size %d (O_DIRECT needs it)",
			job.Name, maxBS, job.Filename, w.lbs)
	}
	w.bufs, err = engines.AllocBuffers(job.IODepth, maxBS)
	if err != nil {
		w.close()
		return fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	cfg := engineConfig(&job, f, w.bufs.All(), size)
	cfg.Files = w.files
	cfg.More = w.more
	if workload.IsNetEngine(job.Engine) {
		cfg.Net, cfg.Stop = netSpec(&job, clone), w.over
	}
	w.eng, err = engines.New(job.Engine, cfg)
	if err != nil {
		w.close()
		return fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	w.res.FixedBufs = engines.FixedBuffers(w.eng)
	if prefix := cmp.Or(opts.HistLogPrefix, job.WriteHistLog); prefix != "" {
		if w.hist, err = newHistLog(&job, prefix, jobNum, layout); err != nil {
			w.close()
			return err
		}
	}
	if w.logs, err = newIOLogs(&job, jobNum); err != nil {
		w.close()
		return err
	}
	if job.WriteIOLog != "" {
		if w.iolog, err = fio.NewIOLogWriter(job.WriteIOLog, iologFiles(&job, w.names, clone), clock.Now()); err != nil {
			w.close()
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	if job.CmdPrio.On() {
		w.prio = newPrioPicker(&job.CmdPrio, iogen.Seed(&job, clone, uint64(jobNum)))
		for d := range workload.NumDirs {
			w.res.Prios[d] = prioSlots(&job.CmdPrio, d, jobIOPrio(&job), layout)
		}
	}
	if opts.Faults != nil {
		f := *opts.Faults
		f.Seed += uint64(clone)
		fe, err := engines.WithFaults(w.eng, job.IODepth, f)
		if err != nil {
			w.close()
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
		w.eng = fe
	}
	if w.eng.Flags()&engines.FlagNoIO != 0 {
		src.ver = nil // no data moves: nothing to read back
	}
	w.fileOps = w.eng.Flags()&engines.FlagFileOps != 0
	w.units = make([]engines.Unit, job.IODepth)
	w.free = make([]*engines.Unit, 0, job.IODepth)
	w.staged = make([]*engines.Unit, 0, job.IODepth)
	if src.ver == nil && job.RW.Writes() {
		fill := iogen.NewBufFill(&job, jobNum, max(w.clones, 1))
		for i := range job.IODepth {
			fill.InitBuf(w.bufs.Buf(i))
		}
		if fill.PerWrite() {
			src.fill = fill
		}
	}
	for i := range w.units {
		u := &w.units[i]
		u.Index = i
		u.BufIndex = i
		u.Buf = w.bufs.Buf(i)
		w.free = append(w.free, u)
	}
	return nil
}

func (w *worker) close() {
	w.closeLogs()
	w.closeIO()
}

// closeLogs closes what belongs to the result: logs and the files of
// unlink.
func (w *worker) closeLogs() {
	if w.hist != nil {
		var end time.Duration
		if w.measureStart != 0 && w.lastDone > w.measureStart {
			end = time.Duration(w.lastDone - w.measureStart)
		}
		if err := w.hist.close(end, w.clats()); err != nil && w.res.Err == nil {
			w.res.Err = err
		}
		w.hist = nil
	}
	dropDisabled(w.res) // after the histogram log, which records clat
	if w.logs != nil {
		if err := w.logs.close(max(w.lastDone-w.measureStart, 0)); err != nil && w.res.Err == nil {
			w.res.Err = err
		}
		w.logs = nil
	}
	if w.iolog != nil {
		if err := w.iolog.Close(clock.Now()); err != nil && w.res.Err == nil {
			w.res.Err = err
		}
		w.iolog = nil
	}
	if w.job.Unlink {
		if err := w.unlinkFiles(); err != nil && w.res.Err == nil {
			w.res.Err = err
		}
	}
}

// closeIO closes the engine, frees the buffers and closes the file; with
// nothing in flight.
func (w *worker) closeIO() {
	if w.eng != nil {
		w.eng.Close()
		w.eng = nil
	}
	if w.bufs != nil {
		w.bufs.Free()
		w.bufs = nil
	}
	if w.file != nil {
		w.file.Close()
		w.file = nil
	}
	w.closeMore()
}

// run is the job's I/O loop: fill the queue, commit, reap, sample.
//
// Clock reads follow fio: a start time when a unit is prepared, an issue
// time just before Queue (synchronous engines) or after each commit (async
// engines), one completion time per reaped batch. For synchronous engines
// that is one read more per I/O than a shared start and issue time: fio
// takes both, and its lat (completion - start) exceeds its clat
// (completion - issue) by the time between, some tens of ns; slat is not
// recorded for them, as fio does not.
func (w *worker) run(start int64) {
	if w.job.CreateOnly {
		w.finish(false, nil) // the file is laid out: that was the job
		return
	}
	// The collector stays off while the job may block in the kernel,
	// until its goroutine is back, also past the run (stall.go: holdGC).
	holdGC()
	defer releaseGC()
	runFrom := start // the runtime counts from here
	if o, ok := w.eng.(engines.Opener); ok {
		// net: the peer is reached first, and the job's measurement
		// starts then (and its runtime, as fio's, for TCP and unix).
		restart, err := o.Open()
		if err != nil {
			w.fail(err)
			return
		}
		start = clock.Now()
		if restart {
			runFrom = start
		}
	}
	if w.job.Offload {
		w.runOffload(start) // io_submit_mode=offload: offload.go
		return
	}
	// io_uring completes on the submitting thread, and the CPU figures
	// come from this thread's rusage. The thread is not unlocked: it ends
	// with the job's goroutine, and the kernel drops what the job left
	// on it (the io_uring ring registered with it; see
	// engines.Config.OneThread).
	runtime.LockOSThread()
	basePrio := jobIOPrio(&w.job)
	if basePrio != 0 {
		restore, err := setThreadIOPrio(basePrio)
		if err != nil {
			w.fail(err)
			return
		}
		defer restore()
	}
	if cpus := cpusFor(&w.job, w.thread); cpus != nil {
		restore, err := setThreadCPUs(cpus)
		if err != nil {
			w.fail(err)
			return
		}
		defer restore()
	}
	if w.opts.OnStart != nil {
		w.opts.OnStart(w.res, unix.Gettid())
	}

	j := &w.job
	if f := w.src.flow; f != nil {
		f.join()
		defer f.leave()
	}
	w.src.pacer.Start(start)
	w.src.logsPasses = w.iolog != nil
	w.src.settle()
	if w.iolog != nil {
		w.iolog.FileAct(start, workload.LogOpen)
	}
	w.measureStart = start + int64(j.RampTime)
	if j.RampTime > 0 {
		w.ramp.begin(start)
	}
	if j.Runtime > 0 {
		w.deadline = max(runFrom+int64(j.RampTime)+int64(j.Runtime), w.measureStart)
		w.endBy.Store(w.deadline + int64(w.grace))
	}
	w.initGates()
	w.nextTick = w.measureStart + int64(time.Second)
	w.minRate = newMinRate(j, start)
	if w.lat = newLatTarget(j); w.lat != nil {
		w.lat.init(start)
	}
	w.nextSlice = w.measureStart + int64(workload.SliceInterval)
	lp := newLoopParams(j, w.eng.Flags(), basePrio)
	var stalled bool
	if w.leanLoop(basePrio) {
		stalled = w.loopLean(start, &lp)
	} else {
		stalled = w.loopFull(start, &lp)
	}
	if stalled {
		w.giveUp()
		return
	}
	w.endSync()
	if w.stalled {
		w.giveUp()
		return
	}
	w.finish(w.measuring, &w.ru0)
}

// syncDone reads the completion time of a unit a synchronous engine
// completed inside Queue: unordered, as its issue time (see issue), and
// held at or after it, so clat is never negative.
func syncDone(u *engines.Unit) int64 {
	return max(clock.NowUnordered(), u.Issue)
}

// loopParams are what a job's I/O loop reads of its job and engine,
// fixed for the run.
type loopParams struct {
	depth, batch int // iodepth, iodepth_batch
	cmin, cmax   int // iodepth_batch_complete_min and _max
	low          int // iodepth_low: a full queue is reaped down to it
	hasCommit    bool
	basePrio     uint16 // the job's own I/O priority (prio, prioclass)
}

func newLoopParams(j *workload.Job, f engines.Flags, basePrio uint16) loopParams {
	lp := loopParams{depth: j.IODepth, hasCommit: f&engines.FlagHasCommit != 0, basePrio: basePrio}
	lp.batch = max(1, min(j.IODepthBatch, lp.depth))
	lp.cmin = max(1, min(j.IODepthBatchCompleteMin, lp.depth))
	lp.cmax = max(lp.cmin, min(j.IODepthBatchCompleteMax, lp.depth))
	lp.low = cmp.Or(j.IODepthLow, lp.depth)
	return lp
}

// startMeasuring marks the end of ramp_time at now (the search of
// latency_target starts over then, as fio's).
func (w *worker) startMeasuring(now int64) {
	w.measuring = true
	_ = unix.Getrusage(unix.RUSAGE_THREAD, &w.ru0)
	w.res.Start = time.Now()
	if w.lat != nil && w.job.RampTime > 0 {
		w.lat.init(now)
	}
}

// checkEnd ends the job's issuing at now once it is stopped or its
// runtime is over.
func (w *worker) checkEnd(now int64) {
	if !w.ended && (w.stop.Load() || (w.deadline != 0 && now >= w.deadline)) {
		w.ended = true
		w.endedAt = now
		if w.deadline != 0 {
			w.endedAt = min(now, w.deadline)
		}
	}
}

// loopFull is the I/O loop of any job. It returns true when the run gave
// up on an I/O the device never answered (stall.go).
func (w *worker) loopFull(now int64, lp *loopParams) (stalled bool) {
	j := &w.job
	depth, batch, hasCommit, basePrio := lp.depth, lp.batch, lp.hasCommit, lp.basePrio
	syncing := anySync(j)
	for {
		if !w.measuring && now >= w.measureStart {
			w.startMeasuring(now)
		}
		w.checkEnd(now)
		// Fill the queue: at most depth units per pass, so the deadline,
		// cancellation and the per-second tick are checked between them.
		busy := false
		for n := 0; n < depth && !w.ended && len(w.free) > 0 && w.latRoom() > 0; n++ {
			if j.ThinkTime > 0 && w.sinceThink >= max(j.ThinkTimeBlocks, 1) {
				if w.infl > 0 || len(w.staged) > 0 {
					w.held = true // thinktime follows the completion of the blocks
					break
				}
				think(j.ThinkTime, j.ThinkTimeSpin)
				w.sinceThink = 0
				now = clock.Now()
			}
			u := w.free[len(w.free)-1]
			sst, wait := w.src.next(u, now, w.infl == 0 && len(w.staged) == 0)
			w.held = false
			if w.prio != nil && sst != srcDone {
				u.Prio = w.prio.pick(dirOf(u.Op), int64(len(u.Buf)))
			}
			if u.Prio == 0 {
				u.Prio = basePrio
			}
			if sst == srcDone {
				w.ended = true
				break
			}
			if sst == srcSync {
				w.syncOp(engines.OpFsync) // a replayed sync or datasync
				now = clock.Now()
				if w.stalled {
					break
				}
				continue
			}
			if sst == srcDrain {
				w.held = true // reap what is in flight first
				break
			}
			if sst == srcWait || sst == srcHeld {
				w.held = true
				if w.infl > 0 || len(w.staged) > 0 {
					break // reap meanwhile
				}
				if sst == srcHeld {
					w.src.flow.pause(now)
				} else {
					time.Sleep(time.Duration(min(wait, int64(100*time.Millisecond))))
				}
				now = clock.Now()
				break
			}
			w.free = w.free[:len(w.free)-1] // u is taken: fsync may refill the list
			w.sinceThink++
			if j.UnlinkEachLoop && w.src.drawPass > w.unlinkedAt {
				w.unlinkedAt = w.src.drawPass
				if !w.unlinkLoop() {
					w.free = append(w.free, u)
					break
				}
			}
			if syncing {
				w.syncIfDue(u)
				if w.stalled {
					w.free = append(w.free, u)
					break
				}
			}
			// fio's start_time: the unit is prepared (after any fsync it
			// waited for); see issue.
			st, err := w.issue(u, hasCommit)
			now = u.Issue
			if err != nil {
				w.queueFailed(u, err)
				break
			}
			if w.iolog != nil && st != engines.Busy {
				w.logIO(u)
			}
			switch st {
			case engines.Completed:
				now = syncDone(u)
				d := w.depthsAt(now)
				d.Level[workload.LevelBucket(w.infl+len(w.staged)+1)]++
				if !hasCommit {
					d.Submit[1]++
					d.Complete[1]++
				}
				w.complete(u, now)
			case engines.Queued:
				if w.src.phaseEnd > 0 {
					w.src.queuedIO(len(u.Buf))
				}
				w.staged = append(w.staged, u)
				if len(w.staged) >= batch {
					now = w.commit()
				}
			case engines.Busy:
				w.free = append(w.free, u)
				w.src.unget(u)
				busy = true
			}
			if busy {
				break
			}
		}
		if w.stalled {
			return true
		}
		if len(w.staged) > 0 {
			now = w.commit()
		}
		// Reap when the queue is full, the engine is busy, the rate limit
		// holds new I/O back, or to drain at the end.
		quiesce := w.lat != nil && w.lat.quiesce
		full := len(w.free) == 0 || w.latRoom() <= 0
		if w.infl > 0 && (full || busy || w.ended || w.held) {
			now = w.reap(lp, full, w.ended || quiesce, false, now)
		}
		if w.stalled {
			return true
		}
		if w.lat != nil && w.latStep(now) {
			w.measuring = false // the depth is found: measure again from now
			continue
		}
		w.sample(now)
		if w.minRate != nil && w.lastDone >= w.minRate.next {
			if err := w.minRate.check(j, &w.res.Dirs, w.lastDone); err != nil {
				w.fail(err)
			}
		}
		if w.ended && w.infl == 0 && len(w.staged) == 0 {
			return false
		}
	}
}

// issue stamps a prepared unit and hands it to the engine, inside the
// stall gate when the engine completes it inside Queue (see stall.go):
// the one Queue of loopFull and loopLean.
//
// It takes the unit's start time and its issue time. The unit was
// prepared before (its offset, size and buffer), and nothing is done
// between its start and its Queue: for a synchronous engine (no commit)
// one reading is both, so lat equals clat, with no clock read counted in
// it (fio reads twice there and counts its own bookkeeping between the
// two in lat; slat, of which that is the whole, it does not report for
// a synchronous engine). The reading is unordered (clock.NowUnordered),
// as fio's own clock is a plain RDTSC: an ordered read costs twice as
// much, for ordering that only the reorder window of a few ns could
// change. An async engine's issue time is its start until its commit
// stamps it.
func (w *worker) issue(u *engines.Unit, hasCommit bool) (engines.Status, error) {
	if hasCommit {
		u.Start = clock.Now()
	} else {
		u.Start = clock.NowUnordered()
	}
	u.Issue = u.Start
	if w.gateQueue {
		w.gate.Store(int32(u.Index) + 1)
	}
	st, err := w.eng.Queue(u)
	if w.gateQueue {
		w.leaveGate(int32(u.Index) + 1)
	}
	return st, err
}

// queueFailed takes a failed Queue of u in loopFull or loopLean, which
// then stop issuing: an abort leaves u outstanding and stalls the job,
// the end of a network peer's stream ends it, any other error fails it.
func (w *worker) queueFailed(u *engines.Unit, err error) {
	if errors.Is(err, engines.ErrAborted) {
		w.stalled = true // u stays out: it is outstanding
		return
	}
	w.free = append(w.free, u)
	if errors.Is(err, engines.ErrEndOfStream) {
		w.src.unget(u) // the peer is done: so is the job
		w.ended = true
		return
	}
	w.fail(fmt.Errorf("queue: %w", err))
}

// leanLoop reports whether the job uses none of what loopFull checks
// per I/O beyond issuing and accounting it: the I/O source's lean path
// (ioSource.settle: one direction and block size, no rate, verify,
// flow, trace, buffer fill), no thinktime, priorities, syncs, I/O log,
// latency target or limit, latency, bandwidth or histogram logs, file
// operations, minimum rate, fill_device or ramp_time (whose counts
// ramp_run.go keeps aside).
func (w *worker) leanLoop(basePrio uint16) bool {
	j := &w.job
	return w.src.lean && j.RampTime == 0 && j.ThinkTime == 0 && w.prio == nil && basePrio == 0 && !anySync(j) &&
		w.iolog == nil && w.lat == nil && j.MaxLatency == noMaxLatency && w.logs == nil &&
		w.hist == nil && !w.fileOps && w.minRate == nil && !j.FillDevice && !j.UnlinkEachLoop
}

// loopLean is loopFull for a job that leanLoop admits: the same I/Os,
// clock reads and accounting, without the checks of what the job does
// not use.
func (w *worker) loopLean(now int64, lp *loopParams) (stalled bool) {
	depth, batch, hasCommit := lp.depth, lp.batch, lp.hasCommit
	for {
		if !w.measuring && now >= w.measureStart {
			w.startMeasuring(now)
		}
		w.checkEnd(now)
		busy := false
		for n := 0; n < depth && !w.ended && len(w.free) > 0; n++ {
			u := w.free[len(w.free)-1]
			// The lean source is ready or done: it never waits.
			if sst, _ := w.src.next(u, now, false); sst == srcDone {
				w.ended = true
				break
			}
			w.free = w.free[:len(w.free)-1]
			st, err := w.issue(u, hasCommit)
			now = u.Issue
			if err != nil {
				w.queueFailed(u, err)
				break
			}
			switch st {
			case engines.Completed:
				now = syncDone(u)
				if now >= w.measureStart {
					d := &w.res.Depths
					d.Level[workload.LevelBucket(w.infl+len(w.staged)+1)]++
					if !hasCommit {
						d.Submit[1]++
						d.Complete[1]++
					}
				}
				w.completeLean(u, now)
			case engines.Queued:
				w.staged = append(w.staged, u)
				if len(w.staged) >= batch {
					now = w.commit()
				}
			case engines.Busy:
				w.free = append(w.free, u)
				w.src.unget(u)
				busy = true
			}
			if busy {
				break
			}
		}
		if w.stalled {
			return true
		}
		if len(w.staged) > 0 {
			now = w.commit()
		}
		if full := len(w.free) == 0; w.infl > 0 && (full || busy || w.ended) {
			now = w.reap(lp, full, w.ended, true, now)
			if w.stalled {
				return true
			}
		}
		w.sample(now)
		if w.ended && w.infl == 0 && len(w.staged) == 0 {
			return false
		}
	}
}

// reap takes completions from the engine and accounts them (complete,
// or completeLean when lean), and returns the time of the last batch
// (now when none was taken). As
// fio does: a full queue is reaped iodepth_batch_complete_max at a time
// (one by default) down to iodepth_low, and each batch is stamped when
// it is taken; all marks a drain (the end, a quiesce), which takes what
// there is in batches of up to the depth.
func (w *worker) reap(lp *loopParams, full, all, lean bool, now int64) int64 {
	need, most, low := 1, lp.cmax, w.infl-1
	switch {
	case all:
		most = lp.depth
	case full:
		need, low = lp.cmin, lp.low
	}
	for {
		// The wait is bounded (reapPoll); only when it ends with
		// nothing does getEvents check whether the run gave up.
		lo, hi := min(need, w.infl), min(most, w.infl)
		n, err := w.eng.GetEvents(lo, hi, reapPoll)
		if n == 0 && err == nil {
			n, err = w.getEvents(lo, hi)
		}
		if w.stalled {
			return now
		}
		if err != nil {
			w.fail(fmt.Errorf("getevents: %w", err))
			w.drainForced()
		}
		now = clock.Now()
		if n > 0 {
			w.depthsAt(now).Complete[workload.BatchBucket(n)]++
		}
		for i := range n {
			w.infl--
			if lean {
				w.completeLean(w.eng.Event(i), now)
			} else {
				w.complete(w.eng.Event(i), now)
			}
		}
		if err != nil || n == 0 || w.infl <= low {
			return now
		}
	}
}

// sample closes the throughput slice and the second that now ends.
func (w *worker) sample(now int64) {
	if w.measuring && now >= w.nextSlice {
		w.slice(now)
	}
	if w.measuring && now >= w.nextTick {
		w.tick(now)
	}
}

// finish closes a clone's run: its runtime, the CPU its thread used since
// ru0 (when measuring started; nil: none, the result is finished on
// another thread), the last partial slice and second, steady state and
// verify failures. A job given up on (stall.go) runs to endAt, its
// deadline or stop, not to its last completion: the time the device did
// not answer is part of its runtime, at zero throughput.
func (w *worker) finish(measuring bool, ru0 *unix.Rusage) {
	end := max(w.lastDone, w.endAt)
	if w.deadline != 0 && end > w.deadline {
		end = w.deadline
	}
	if !measuring {
		w.endInRamp(end, ru0 != nil)
	}
	if measuring && end > w.measureStart {
		w.res.Runtime = time.Duration(end - w.measureStart)
		if ru0 != nil {
			w.setCPU(ru0)
		}
		// The last partial slice and second, so short runs still have a
		// sample.
		// A slice at or before the last one's end folds into it, so
		// completions stamped at the instant of the last close are not
		// lost.
		last := w.lastDone
		if w.endAt != 0 {
			last = end
		}
		w.slice(last)
		if last > w.nextTick-int64(time.Second) {
			w.tick(last)
		}
	}
	if w.ss != nil {
		w.res.Steady = w.ss.result()
	}
	if w.lat != nil {
		w.res.LatencyDepth = w.lat.qd
	}
	if w.src != nil && w.src.dry {
		for d := range workload.NumDirs {
			s := &w.res.Dirs[d]
			s.IOs += w.src.dryIOs[d]
			s.Bytes += w.src.dryBytes[d]
			s.DryIOs, s.DryBytes = w.src.dryIOs[d], w.src.dryBytes[d]
		}
	}
	w.verifyFailed()
	w.netDrops()
	if !w.foreign {
		w.stopEngine()
	}
}

// setCPU sets the result's CPU figures: what the thread used since ru0.
func (w *worker) setCPU(ru0 *unix.Rusage) {
	var ru1 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru1)
	w.res.UsrCPU = time.Duration(unix.TimevalToNsec(ru1.Utime) - unix.TimevalToNsec(ru0.Utime))
	w.res.SysCPU = time.Duration(unix.TimevalToNsec(ru1.Stime) - unix.TimevalToNsec(ru0.Stime))
	w.res.Ctx = uint64(ru1.Nvcsw+ru1.Nivcsw) - uint64(ru0.Nvcsw+ru0.Nivcsw)
	w.res.MajFlt = uint64(ru1.Majflt - ru0.Majflt)
	w.res.MinFlt = uint64(ru1.Minflt - ru0.Minflt)
}

// commit submits the staged units and stamps their issue time, which it
// returns.
func (w *worker) commit() int64 {
	if w.gateCommit {
		w.gate.Store(gateCommit)
	}
	err := w.eng.Commit()
	if w.gateCommit {
		w.leaveGate(gateCommit)
	}
	if err != nil {
		w.fail(fmt.Errorf("commit: %w", err))
	}
	t := clock.Now()
	measuring := t >= w.measureStart
	n := len(w.staged)
	d := w.depthsAt(t)
	d.Level[workload.LevelBucket(w.infl+n)] += uint64(n)
	d.Submit[workload.BatchBucket(n)]++
	for _, u := range w.staged {
		u.Issue = t
		if measuring {
			w.res.Dirs[dirOf(u.Op)].Slat.Add(uint64(t - u.Start))
			if w.logs != nil {
				w.logs.slat(t-w.measureStart, dirOf(u.Op), uint64(t-u.Start), uint64(len(u.Buf)), u.Offset, u.Prio)
			}
		}
	}
	w.infl += len(w.staged)
	w.staged = w.staged[:0]
	return t
}

// completeLean is complete for a job that leanLoop admits.
func (w *worker) completeLean(u *engines.Unit, t int64) {
	if perfSlowNs > 0 {
		perfSlow() // a stortest_perfslow build only
	}
	w.free = append(w.free, u)
	w.lastDone = t
	if u.Res < 0 {
		w.ioError(u)
	}
	if t < w.measureStart {
		return
	}
	s := &w.res.Dirs[dirOf(u.Op)]
	s.IOs++
	if u.Res > 0 {
		s.Bytes += uint64(u.Res)
		if int(u.Res) < len(u.Buf) {
			s.ShortIOs++
		}
	}
	s.Clat.Add(uint64(t - u.Issue))
	s.Lat.Add(uint64(t - u.Start))
}

// complete accounts one finished unit at completion time t.
func (w *worker) complete(u *engines.Unit, t int64) {
	if perfSlowNs > 0 {
		perfSlow() // a stortest_perfslow build only
	}
	w.free = append(w.free, u)
	w.lastDone = t
	if u.Op == engines.OpFsync || u.Op == engines.OpFdatasync {
		return // fsync() accounts its own
	}
	d := dirOf(u.Op)
	if u.Res < 0 && w.job.FillDevice && isFull(u.Res) {
		w.ended = true // fill_device: full is the end, not an error
		return
	}

	if u.Res < 0 {
		w.ioError(u)
	} else if u.Op == engines.OpRead {
		w.src.check(u, &w.res.Verify)
	}
	if t < w.measureStart {
		w.ramp.done(d, u.Res, len(u.Buf))
		return
	}
	if w.lat != nil || w.job.MaxLatency != noMaxLatency {
		w.latencyCheck(u, t) // after ramp_time only, as fio
	}
	s := &w.res.Dirs[d]
	s.IOs++
	if u.Res > 0 {
		s.Bytes += uint64(u.Res)
		if int(u.Res) < len(u.Buf) {
			s.ShortIOs++
		}
	}
	if !w.fileOps {
		s.Clat.Add(uint64(t - u.Issue))
		s.Lat.Add(uint64(t - u.Start))
	} else if u.FileOp {
		s.Clat.Add(uint64(t - u.Issue)) // the file's call; fio records no lat
	}
	if w.hist != nil && w.hist.due(time.Duration(t-w.measureStart)) {
		if err := w.hist.row(time.Duration(t-w.measureStart), w.clats()); err != nil {
			w.fail(err)
		}
	}
	if w.logs != nil {
		w.logs.done(t-w.measureStart, d, uint64(t-u.Issue), uint64(t-u.Start), uint64(max(u.Res, 0)), uint64(len(u.Buf)), u.Offset, u.Prio)
	}
	if w.prio != nil {
		addPrio(w.res.Prios[d], u.Prio, uint64(t-u.Issue), uint64(t-u.Start))
	}
}

// publish gives the progress reporter the totals so far: once a slice,
// not once an I/O (an atomic store is a locked instruction).
func (w *worker) publish() {
	for d := range workload.NumDirs {
		w.pub.ios[d].Store(w.res.Dirs[d].IOs)
		w.pub.bytes[d].Store(w.res.Dirs[d].Bytes)
	}
}

// clats returns the job's cumulative clat histograms, per direction.
func (w *worker) clats() *[workload.NumDirs]*latency.Histogram {
	for d := range workload.NumDirs {
		w.clatNow[d] = w.res.Dirs[d].Clat
	}
	return &w.clatNow
}

func (w *worker) ioError(u *engines.Unit) {
	d := dirOf(u.Op)
	errno := int(-u.Res)
	w.res.Dirs[d].Errors++
	w.res.ErrnoCounts[errno]++
	fatal := !w.opts.ContinueOnError && !continues(w.job.ContinueOnError, d, errno)
	if len(w.res.FirstErrors) >= workload.MaxRecordedErrors && !fatal {
		return // counted; explaining it would allocate for nothing
	}
	e := workload.IOError{Op: u.Op.String(), Offset: u.Offset, Len: len(u.Buf), Errno: errno, Err: w.eng.Explain(u)}
	if len(w.res.FirstErrors) < workload.MaxRecordedErrors {
		w.res.FirstErrors = append(w.res.FirstErrors, e)
	}
	if fatal && w.res.Err == nil {
		w.res.Err = e
		w.ended = true
	}
}

// verifyFailed makes the job's error of its verify mismatches, unless the
// job continues after verify failures.
func (w *worker) verifyFailed() {
	v := &w.res.Verify
	if v.Mismatches == 0 || w.res.Err != nil || w.opts.ContinueOnError || w.job.ContinueOnError&workload.ContinueVerify != 0 {
		return
	}
	w.res.Err = fmt.Errorf("verify: %d of %d blocks read back failed; the first: %w", v.Mismatches, v.Checked, v.First[0])
}

func (w *worker) fail(err error) {
	if w.res.Err == nil {
		w.res.Err = err
	}
	w.ended = true
}

// drainForced abandons in-flight units after an engine failure.
func (w *worker) drainForced() {
	w.infl = 0
	w.staged = w.staged[:0]
}

// syncOp waits for in-flight writes, then issues one fsync or fdatasync
// through the engine, or sync_file_range itself, and records its latency
// in Sync (fio's "sync" object: lat_ns has every kind, total_ios fsyncs
// only, as fio 3.33 prints them).
func (w *worker) syncOp(op engines.Op) {
	if !w.drainInFlight() {
		return
	}
	// A unit of its own: the free list changes while draining.
	u := &w.syncUnit
	u.Op, u.Offset, u.Buf, u.BufIndex, u.Index = op, 0, nil, -1, -1
	u.Start = clock.Now()
	u.Issue = u.Start
	if w.iolog != nil {
		w.iolog.SetFile(u.File)
		w.iolog.IO(u.Start, workload.LogSync, 0, 0)
	}
	var err error
	if op == workload.OpSyncFileRange {
		if w.gated {
			w.gate.Store(gateSync)
		}
		u.Res = w.syncFileRange()
		if w.gated {
			w.leaveGate(gateSync)
		}
	} else {
		err = w.engineSync(u)
	}
	if w.stalled {
		return
	}
	t := clock.Now()
	w.syncState.synced()
	if err != nil {
		w.fail(fmt.Errorf("%s: %w", workload.SyncName(op), err))
	} else if t >= w.measureStart {
		if op == engines.OpFsync {
			w.res.Sync.IOs++
		}
		w.res.Sync.Lat.Add(uint64(t - u.Start))
		if u.Res < 0 {
			w.res.Sync.Errors++
		}
	}
}

// maxSliceRoom bounds the slices reserved up front: 10 minutes' worth,
// 384 KiB per clone (64 bytes a slice). Longer runs grow the slice by
// append, a copy each time it doubles, never per I/O.
const maxSliceRoom = int(10 * time.Minute / workload.SliceInterval)

// drainInFlight commits what is staged and reaps every unit in flight;
// false when the job stalled or failed meanwhile.
func (w *worker) drainInFlight() bool {
	for w.infl > 0 || len(w.staged) > 0 {
		if len(w.staged) > 0 {
			w.commit()
		}
		if w.infl == 0 {
			break
		}
		n, err := w.getEvents(1, w.job.IODepth)
		if w.stalled {
			return false
		}
		if err != nil {
			w.fail(fmt.Errorf("getevents: %w", err))
			w.drainForced()
			return false
		}
		t := clock.Now()
		for i := range n {
			w.infl--
			w.complete(w.eng.Event(i), t)
		}
	}
	return true
}

// sliceRoom is the number of slices to reserve for a job of runtime
// (0: unknown, the job ends with its size): every slice and the final
// partial one, up to maxSliceRoom.
func sliceRoom(runtime time.Duration) int {
	if runtime <= 0 {
		return 0
	}
	return int(min(int64(runtime/workload.SliceInterval)+2, int64(maxSliceRoom)))
}

// slice closes the throughput slice ending at t.
func (w *worker) slice(t int64) {
	w.publish()
	sl := workload.Slice{T: time.Duration(t - w.measureStart)}
	sl.Dur = sl.T
	if n := len(w.res.Slices); n > 0 {
		sl.Dur = sl.T - w.res.Slices[n-1].T
	} else if sl.Dur <= 0 {
		return // no time yet: what completed goes to the next slice
	}
	for d := range workload.NumDirs {
		s := &w.res.Dirs[d]
		sl.IOs[d] = s.IOs - w.sliceIOs[d]
		sl.Bytes[d] = s.Bytes - w.sliceBytes[d]
		w.sliceIOs[d], w.sliceBytes[d] = s.IOs, s.Bytes
	}
	if sl.Dur > 0 {
		w.res.Slices = append(w.res.Slices, sl)
	} else {
		// A final slice at the instant of the last: fold it in.
		p := &w.res.Slices[len(w.res.Slices)-1]
		for d := range workload.NumDirs {
			p.IOs[d] += sl.IOs[d]
			p.Bytes[d] += sl.Bytes[d]
		}
	}
	for w.nextSlice <= t {
		w.nextSlice += int64(workload.SliceInterval)
	}
}

// tick closes the per-second interval ending at t.
func (w *worker) tick(t int64) {
	sec := workload.Second{T: time.Duration(t - w.measureStart)}
	sec.Dur = sec.T
	if n := len(w.res.Seconds); n > 0 {
		sec.Dur = sec.T - w.res.Seconds[n-1].T
	}
	for d := range workload.NumDirs {
		s := &w.res.Dirs[d]
		sec.IOs[d] = s.IOs - w.tickIOs[d]
		sec.Bytes[d] = s.Bytes - w.tickBytes[d]
		w.tickIOs[d], w.tickBytes[d] = s.IOs, s.Bytes
		_ = w.clatDelta[d].Sub(s.Clat, w.clatPrev[d])
		_ = w.clatPrev[d].CopyFrom(s.Clat)
		if w.clatDelta[d].Count() > 0 {
			sec.Clat[d] = w.secondClat(w.clatDelta[d])
		}
	}
	w.res.Seconds = append(w.res.Seconds, sec)
	for w.nextTick <= t {
		w.nextTick += int64(time.Second)
	}
	// Steady state judges the seconds of a running job only: not the
	// partial one closed after the job stopped issuing I/O.
	if w.ss != nil && !w.ended && w.ss.second(w.res, &w.clatDelta) {
		w.ended = true
	}
	if w.opts.OnSecond != nil && !w.foreign && w.opts.OnSecond(w.res, &w.res.Seconds[len(w.res.Seconds)-1], &w.clatDelta) {
		w.ended = true
	}
}

// secondClat returns h's non-empty buckets for a per-second sample as a
// latency.Sparse cut from a shared arena of chunks from 4 KiB to 256 KiB:
// one allocation per chunk, not per second, and at most one second's
// bytes left unused at the end of a chunk.
func (w *worker) secondClat(h *latency.Histogram) latency.Sparse {
	n := h.SparseSize()
	if cap(w.clatArena)-len(w.clatArena) < n {
		size := min(max(2*cap(w.clatArena), clatChunkMin), clatChunkMax)
		w.clatArena = make([]byte, 0, max(size, n))
	}
	var s latency.Sparse
	s, w.clatArena = h.AppendSparse(w.clatArena)
	return s
}

// Chunk sizes of the per-second clat arena, in bytes.
const (
	clatChunkMin = 4 << 10
	clatChunkMax = 256 << 10
)

func dirOf(op engines.Op) workload.Dir {
	switch op {
	case engines.OpWrite:
		return workload.DirWrite
	case engines.OpTrim:
		return workload.DirTrim
	}
	return workload.DirRead
}

func reportProgress(ramp, longest time.Duration, workers []*worker, start int64, done <-chan struct{}, f func(workload.Progress)) {
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	var prev workload.Progress
	prevT := start
	for {
		final := false
		select {
		case <-tk.C:
		case <-done:
			final = true
		}
		now := clock.Now()
		p := workload.Progress{Elapsed: time.Duration(now - start), ETA: -1, Done: final}
		p.Ramp = time.Duration(now-start) < ramp
		for _, w := range workers {
			for d := range workload.NumDirs {
				p.IOs[d] += w.pub.ios[d].Load()
				p.Bytes[d] += w.pub.bytes[d].Load()
			}
		}
		if dt := float64(now-prevT) / 1e9; dt > 0 {
			for d := range workload.NumDirs {
				p.IOPS[d] = float64(p.IOs[d]-min(prev.IOs[d], p.IOs[d])) / dt
				p.BW[d] = float64(p.Bytes[d]-min(prev.Bytes[d], p.Bytes[d])) / dt
			}
		}
		if longest > 0 {
			p.ETA = max(0, longest-p.Elapsed)
		}
		f(p)
		if final {
			return
		}
		prev, prevT = p, now
	}
}
