// Package fiojob is stortest's fio front end: Parse reads fio job files
// and command lines into workload.Jobs with fio's semantics, from one
// option table (options.go: each option's name, aliases, how it is read
// and its row of the table below, which TestDocTable -update writes).
// The sections below say what the options do when a job runs, where that
// parts from fio.
//
// # Jobs
//
// A Job's zero fields take fio's defaults (Job.Normalized). Validate names
// the first bad field by its fio option; Format prints a fio job-file
// section that Parse reads back to the same Job; MarshalJSON writes the
// normalized Job in a fixed order, so the same workload always encodes to
// the same bytes (baselines store it).
//
// # fio job files and command lines
//
// Parse reads fio's INI form, and its command-line form (Config.Args)
// (--name=x starts a job) with fio's semantics: [global] options apply to
// the jobs after them, ';' and '#' start comments anywhere on a line,
// ${VAR} is replaced by the environment variable in a job file (an unset
// one is empty, as in fio, and an error at its line names it; on a
// command line fio expands nothing), an empty value (filename=) is
// refused as fio refuses it, and more jobs than fio's limit of 4088,
// numjobs clones counting (MaxJobs), are refused at the job that passes
// it. Values use fio's units:
// sizes with k, m, g, t, p (powers of 1024, fio's default kb_base=1024;
// "ki" too, and "KiB"-style suffixes powers of 1000, as fio 3.33 reads
// them: package fio holds this one reading), times with us, ms, s, m, h,
// d (bare numbers are seconds), booleans 1/0, true/false, yes/no, on/off
// (fio itself takes only 1/0). Errors carry the file and line (or argument index), the job
// and the option; an option fio has but stortest does not is
// ErrUnsupported ("fio option X is not supported by stortest"), any other
// ErrUnknownOption. fio's $keywords $pagesize, $mb_memory (the physical
// memory in MiB, a plain number: filesize=$mb_memory/4 is bytes) and
// $ncpus (CPUs configured) are replaced in job files as fio 3.33 replaces
// them, after ${VAR}, and a value holding one and + - * / is computed by
// bc's rules (whole numbers, as fio has bc compute it); on a command line,
// where fio fails parsing them, they are refused. Other arithmetic
// ("(1+2)*4k") and several files per job (but with the file engines: see
// NoDataEngines) are not supported; include FILE is read as fio reads it
// (see Parse). Block sizes per
// direction (bs=4k,64k) go to the direction the job issues, or, for a
// job that reads and writes, to Job.WriteBlocks.
//
// The accepted options, exactly:
//
//	option                aliases                Job field and notes
//	name                                         Name; on a command line, starts a new job
//	description                                  Description
//	filename                                     Filename; one file (\: escapes a colon)
//	filename_format                              FilenameFormat: $jobname, $jobnum, $filenum, $clientuid (empty)
//	cpus_allowed                                 CPUsAllowed: CPUs and ranges, 0-3,6
//	cpumask                                      CPUsAllowed: a bit per CPU (the low 32)
//	cpus_allowed_policy                          CPUsSplit: shared (each thread on every CPU), split (one CPU each)
//	allow_mounted_write                          AllowMountedWrite: write or trim a block device that is mounted, held or swap
//	ioengine                                     Engine: null, sync, psync, pvsync2, libaio, io_uring, mmap, falloc, ftruncate, cpuio, filecreate, filestat, filedelete, exec, posixaio, net
//	rw                    readwrite              RW: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite, randtrimwrite; :N is RWModifier
//	rwmixread                                    RWMixRead (percent)
//	rwmixwrite                                   RWMixRead = 100 - value
//	bs                    blocksize              BlockSize; r,w,t: see WriteBlocks; r-w and r:w are r,w (not a range: fio 3.33 reads them so)
//	bsrange               blocksize_range        BlockSizeRange: min-max (or min:max); r,w,t: see WriteBlocks
//	bssplit                                      BlockSizeSplit: size/percent:size/percent...; blank percentages share the rest; r,w,t: see WriteBlocks
//	iodepth                                      IODepth
//	iodepth_batch_submit  iodepth_batch          IODepthBatch; 0 means iodepth
//	iodepth_batch_complete_min  iodepth_batch_complete  IODepthBatchCompleteMin; 0 means 1
//	iodepth_batch_complete_max                   IODepthBatchCompleteMax; 0 means the min
//	iodepth_low                                  IODepthLow; 0 means iodepth
//	numjobs                                      NumJobs
//	size                                         Size (bytes); N% (or N%%): SizePercent
//	offset                fileoffset             Offset (bytes); N% (or N%%): OffsetPercent
//	direct                                       Direct
//	buffered                                     Direct = !value
//	runtime               timeout                Runtime (default unit s)
//	time_based                                   TimeBased
//	ramp_time                                    RampTime (default unit s)
//	loops                                        Loops
//	rate_iops                                    RateIOPS: r[,w[,t]]
//	rate                                         Rate (bytes/s): r[,w[,t]]
//	fsync                                        FsyncEvery (writes)
//	norandommap                                  NoRandomMap
//	randrepeat                                   RandRepeat
//	randseed                                     RandSeed (decimal or 0x hex)
//	random_distribution                          RandomDistribution: random, zipf:theta[:c], pareto:h[:c], normal:dev[:c], zoned:a/r:..., zoned_abs:a/size:...
//	verify                                       Verify: 0 (none), crc32c (crc32c-intel), sha256, md5, crc64, crc32, crc16, crc7, xxhash, sha1, sha512, sha3-*, meta, pattern, null
//	verify_pattern                               VerifyPattern: 0x hex and "quoted" text
//	continue_on_error                            ContinueOnError: none, read, write, io, verify, all (0, 1)
//	hipri                                        Hipri (io_uring, pvsync2)
//	fixedbufs                                    FixedBufs = value, NoFixedBufs = !value (io_uring; unset: registered when the kernel allows)
//	registerfiles                                RegisterFiles (io_uring)
//	sqthread_poll                                SQThreadPoll (io_uring)
//	nowait                                       NoWait (pvsync2, libaio, io_uring)
//	percentile_list                              PercentileList: p:p:...; sorted, cut at the first 0
//	lat_percentiles                              LatPercentiles
//	slat_percentiles                             SlatPercentiles
//	write_hist_log                               WriteHistLog (file name prefix; bare: the job's name)
//	log_hist_msec                                LogHistMsec
//	steadystate           ss                     SS, e.g. iops_slope:0.1%
//	ss_dur                steadystate_duration   SSDur (default unit s)
//	ss_ramp               steadystate_ramp_time  SSRamp (default unit s)
//	kb_base                                      1024 only (the default)
//	clat_percentiles                             NoClatPercentiles = !value
//	unified_rw_reporting                         UnifiedRW: none, mixed, both (0, 1, 2)
//	group_reporting                              GroupReporting: a reporting group's jobs report as one
//	write_lat_log                                Logs.Lat (file name prefix; bare: the job's name)
//	write_bw_log                                 Logs.BW (file name prefix; bare: the job's name)
//	write_iops_log                               Logs.IOPS (file name prefix; bare: the job's name)
//	log_avg_msec                                 Logs.AvgMsec; 0 logs every I/O
//	log_offset                                   Logs.Offset
//	log_prio                                     Logs.Prio
//	per_job_logs                                 Logs.Shared = !value
//	cmdprio_percentage                           CmdPrio.Percentage: r[,w] (libaio, io_uring)
//	cmdprio_class                                CmdPrio.Class: r[,w], 1-3 (libaio, io_uring)
//	cmdprio                                      CmdPrio.Level: r[,w], 0-7 (libaio, io_uring)
//	cmdprio_bssplit                              CmdPrio.BSSplit: bs/percent or bs/percent/class/level, joined by :, read,write[,trim] (libaio, io_uring)
//	directory                                    Directory; one directory
//	filesize                                     FileSize (bytes), or FileSize-FileSizeMax (A-B or A:B; with nrfiles above 1)
//	io_size               io_limit               IOSize (bytes)
//	stonewall             wait_for_previous      Stonewall
//	new_group                                    NewGroup
//	wait_for                                     WaitFor (a job before this one)
//	startdelay                                   StartDelay (default unit s; one value, not a range)
//	do_verify                                    NoVerifyPhase = !value
//	verify_only                                  VerifyOnly: issue no workload I/O, read back what the writes would write (fio's or stortest's blocks); not time based
//	verify_backlog                               VerifyBacklog (blocks)
//	thread                                       No effect: every job runs on its own OS thread (any value, as fio takes it)
//	verifysort                                   No effect (deprecated in fio 3.33, which ignores it)
//	verifysort_nr                                No effect (deprecated in fio 3.33, which ignores it)
//	threads                                      No effect (fio's tiobench profile option; without profile= fio ignores it too)
//	random_generator                             tausworthe, lfsr, tausworthe64: stortest's generators are its own; lfsr with one block size visits every block once per pass even with norandommap, as fio's
//	verify_dump                                  No effect: mismatches are reported, not dumped to files
//	verify_state_save                            No effect: no verify state file is written
//	verify_fatal                                 No effect: a pass with mismatches ends the job (continue_on_error=verify goes on)
//	experimental_verify                          No effect: blocks are read back the same way
//	verify_interval                              No effect: one header per block (the I/O is the same)
//	create_serialize                             No effect: files are laid out one at a time
//	clocksource                                  gettimeofday, clock_gettime, cpu: no effect; stortest times every I/O with its own clock whatever the value (the calibrated TSC when invariant, as fio's cpu, else CLOCK_MONOTONIC; STORTEST_CLOCK=tsc|runtime chooses)
//	trim_verify_zero                             No effect: it checks the blocks that trim_percentage trims in a verify job, and stortest refuses trim_percentage
//	flow                                         Flow.Weight: 0-1000; jobs with the same flow_id issue I/Os in the ratio of their weights (0: no flow control)
//	flow_id                                      Flow.ID (default 0)
//	flow_sleep                                   Flow.Sleep (whole microseconds, no unit)
//	flow_watermark                               No effect: fio 3.33 ignores it (deprecated)
//	io_submit_mode                               Offload: inline (false, the default) or offload (true)
//	rate_process                                 Poisson: linear (false, the default) or poisson (true)
//	serialize_overlap                            SerializeOverlap (with iodepth > 1 on an asynchronous engine: io_submit_mode=offload only)
//	fdatasync                                    FdatasyncEvery (writes)
//	sync_file_range                              SyncFileRange: wait_before,write,wait_after[:N]
//	end_fsync                                    EndFsync
//	fsync_on_close                               FsyncOnClose
//	create_fsync                                 NoCreateFsync = !value
//	create_only                                  CreateOnly
//	pre_read                                     PreRead
//	invalidate                                   NoInvalidate = !value (fio's default invalidates)
//	fadvise_hint                                 FadviseHint: 1 (by pattern, the default), 0, sequential, random
//	offset_increment                             OffsetIncrement (bytes; N% is not supported)
//	offset_align                                 OffsetAlign (of offset=N% only, as fio)
//	allrandrepeat                                AllRandRepeat
//	write_hint                                   WriteHint: none, short, medium, long, extreme
//	nonvectored                                  1 (and -1, probe): no effect, io_uring reads and writes are non-vectored, what fio's probe picks; 0 (readv/writev) is not supported
//	file_append                                  FileAppend (write and randwrite jobs with size)
//	overwrite                                    NoOverwrite = !value (without it, files are laid out by writing them, as fio's overwrite=1)
//	sync                                         SyncIO: none (0), sync (1), dsync
//	allow_file_create                            NoFileCreate = !value
//	percentage_random                            PercentSequential = 100 - value: r[,w[,t]] percent (default 100)
//	unique_filename                              No effect: it names files per client host in fio's client/server mode
//	write_iolog                                  WriteIOLog (fio's version 3 iolog, as fio 3.33 writes it)
//	read_iolog                                   ReadIOLog (a version 2 or 3 iolog of one file; not blktrace, not several logs)
//	replay_no_stall                              ReplayNoStall
//	replay_redirect                              ReplayRedirect
//	replay_scale                                 ReplayScale
//	replay_align                                 ReplayAlign (bytes, a power of 2)
//	replay_time_scale                            ReplayTimeScale (percent)
//	replay_skip                                  ReplaySkip (read, write, trim, sync, comma separated)
//	latency_target                               LatencyTarget (default unit us)
//	latency_window                               LatencyWindow (default unit us)
//	latency_percentile                           LatencyPercentile: above 0, at most 100 (the default)
//	latency_run                                  LatencyRun
//	max_latency                                  MaxLatency: read[,write[,trim]] (default unit us)
//	buffer_pattern                               BufferPattern: 0x hex, "text", decimal numbers, concatenated
//	zero_buffers                                 ZeroBuffers
//	refill_buffers                               RefillBuffers
//	scramble_buffers                             NoScramble = !value (default 1)
//	buffer_compress_percentage                   BufferCompress (0-100; not with verify)
//	buffer_compress_chunk                        CompressChunk (bytes, default 512; 0: the block)
//	dedupe_percentage                            DedupePercentage (0-100; not with verify)
//	dedupe_mode                                  DedupeWorkingSet: repeat (false, the default) or working_set (true)
//	dedupe_working_set_percentage                DedupeWorkingSetPercent (1-100, default 5)
//	dedupe_global                                DedupeGlobal
//	rw_sequencer                                 RWSequencer: sequential or identical (with a random rw's :N)
//	blockalign            ba                     BlockAlign (bytes; one value for all directions)
//	rate_min              ratemin                RateMin (bytes/s): r[,w[,t]]
//	rate_iops_min                                RateIOPSMin: r[,w[,t]]
//	rate_cycle            ratecycle              RateCycle (ms)
//	prioclass                                    PrioClass: 1 real time, 2 best effort, 3 idle
//	prio                                         PrioLevel: 0-7 (best effort without prioclass)
//	fill_device           fill_fs                FillDevice: no size: until the device or file system is full
//	thinktime                                    ThinkTime (default unit us)
//	thinktime_spin                               ThinkTimeSpin (default unit us)
//	thinktime_blocks                             ThinkTimeBlocks (default 1)
//	number_ios                                   NumberIOs
//	exitall                                      ExitAll
//	exit_what                                    ExitWhat: group, stonewall or all
//	zonemode                                     ZoneMode: none or strided
//	zonerange                                    ZoneRange (bytes)
//	zonesize                                     ZoneSize (bytes)
//	zoneskip                                     ZoneSkip (bytes)
//	gtod_reduce                                  DisableLat, DisableClat, DisableSlat and DisableBW
//	disable_lat                                  DisableLat
//	disable_clat                                 DisableClat
//	disable_slat                                 DisableSlat
//	bwavgtime                                    BWAvgTime (ms)
//	iopsavgtime                                  IOPSAvgTime (ms)
//	disable_bw_measurement  disable_bw           DisableBW
//	nrfiles               nr_files               NrFiles: files per clone (ioengine sync, psync, pvsync2, libaio, io_uring, posixaio, null and the file engines)
//	openfiles                                    OpenFiles: the most files fio holds open, which orders the files served
//	file_service_type                            FileService: roundrobin[:N], sequential, random[:N], zipf[:theta], pareto[:h], normal[:dev] (gauss)
//	create_on_open                               CreateOnOpen: files are made when the job opens them, none laid out
//	unlink                                       Unlink: remove the job's regular files after it
//	unlink_each_loop                             UnlinkEachLoop: remove the job's regular files before each loop after the first (jobs that only write)
//	fallocate                                    none, native, posix, keep, truncate, 0, 1: no effect (files are laid out by writing them; filecreate makes them empty, as fio)
//	cpuload                                      CPULoad (percent; cpuio)
//	cpuchunks                                    CPUChunks (microseconds; cpuio)
//	cpumode                                      CPUMode: noop, qsort (cpuio)
//	stat_type                                    StatType: stat, lstat, statx (filestat)
//	program                                      ExecProgram (exec)
//	arguments                                    ExecArguments: split at blanks, %r the runtime in s, %n the job's name (exec)
//	grace_time                                   ExecGrace (default unit s; exec)
//	std_redirect                                 ExecNoRedirect = !value (exec)
//	hostname                                     Filename: the peer, multicast group or unix socket (net)
//	port                                         Port: clone i uses port+i (net)
//	protocol              proto                  Protocol: tcp, tcpv6, udp, udpv6, unix (net)
//	listen                                       Listen: wait for the peer (net, TCP)
//	pingpong                                     PingPong: each block comes back (net)
//	nodelay                                      NoDelay: TCP_NODELAY (net)
//	ttl                                          TTL of UDP multicast (net; default 1)
//	window_size                                  WindowSize: the socket's buffers, bytes (net)
//	mss                                          MSS: TCP_MAXSEG (net)
//	interface                                    Interface: IPv4 address for UDP multicast (net)
//
// Where fio's semantics are not followed: the last of bs, bsrange and
// bssplit in a job wins (fio prefers bssplit whatever the order); blank
// bssplit percentages share the remainder so the total is exactly 100;
// rwmixread=0 in a mixed job is an error (write rw=write); iodepth_batch=0
// becomes iodepth; a sequential mixed job (rw) with loops moves the size
// in each loop (fio's loop runs until one direction's stream reaches the
// end of the region), so its directions are fio's through the first loop
// only; the end of ramp_time does not reset the mix's counts, as fio's
// does at a moment that depends on timing.
//
// # I/O logs
//
// write_iolog writes what fio 3.33 writes: a version 3 iolog ("fio version
// 3 iolog", then "µs FILE add|open|close" and "µs FILE read|write|trim|sync
// OFFSET LENGTH"), the same lines as fio's but for the timestamps for
// sequential jobs (random offsets and rwmix draws are not fio's), with a
// close and an open between loops and before each verify pass.
// read_iolog replays a version 2 or 3 log (ReadIOLog parses one) of one
// file in order, at the log's pace (its timestamps, or version 2's waits)
// unless replay_no_stall; the job's rw, bs and size come from the log.
// Refused: blktrace binaries, several logs, "-", read_iolog_chunked, and
// read_iolog or write_iolog with io_submit_mode=offload or, read_iolog,
// with verify. A version 3 "wait" is skipped, as fio does; other lines fio
// would skip with a message are errors naming the file and line.
//
// # Generators
//
// Pattern combines a Mixer (direction: fio's own draws, RWMixRead percent
// of them reads, from fio's generator and seed, so a mixed job issues the
// reads and writes fio issues, in fio's order), BlockSizes (bs, bsrange multiples of the minimum, or the
// bssplit weights) and Offsets over the job's region, in units of the
// smallest block size: sequential; uniform random visiting every block
// exactly once per pass (fio's random map, here a seeded permutation
// re-keyed every pass, so no memory per block, like fio's lfsr; with
// bsrange or bssplit also a bit per block, as fio's map, so that an I/O
// uses up every block it covers and a pass moves the region's size);
// uniform with replacement (norandommap); or a Sampler of zipf, pareto or
// normal (see Distribution). The rest is seeded from iogen.Seed, so the same job
// and seed give the same I/O sequence; offsets and sizes are not fio's. Next
// allocates nothing.
//
// # Rate and verify
//
// Pacer says how long to wait before the next I/O under rate_iops and
// rate (rate_process=poisson: exponential gaps of the same mean), from a
// monotonic ns clock reading; it never sleeps. Verifier
// writes blocks with a header (magic, offset, seed, length, header CRC,
// checksum) and the checksum of fio's verify kind over the data (the
// header's format is stortest's own, so fio cannot read stortest's blocks
// nor the reverse), and Check tells flipped bits from misdirected, lost or
// stale writes and zeroed or foreign blocks (VerifyError); the runner tells
// a block that another job of the run wrote last (their regions overlap)
// from a lost write (CorruptOverwritten). Neither
// allocates on the success path. Written blocks are read back after each
// pass, every verify_backlog writes, and at the end of the job; a job that
// only reads checks every block it reads (what an earlier job wrote), as
// fio's do. A time-based write job has no end, and fio 3.33 ends its write
// phase by the bytes the engine queued: with an engine that queues
// (libaio, io_uring, posixaio), once a size's worth (twice that with
// verify_backlog, its reads included) is queued, what was written is read
// back and the writing starts over, until the runtime ends; with one that
// completes at once (psync, sync, pvsync2, mmap) the phase never ends and
// only verify_backlog reads back. stortest does the same, engine by
// engine. validate.Warnings gives fio's notice that the verify phase never
// starts, which fio prints for every engine.
//
// # Latency target
//
// With latency_target the runner limits the units in flight to a depth
// that starts at 1 and moves after each latency_window as fio 3.33's
// search does (LatencyLimits): doubled while the window's I/Os meet the
// target, bisected between the last passing and failing depths after a
// failure, the queue drained before a lower depth starts; once the depth
// stops changing the measured part (statistics, runtime) restarts for one
// final window and the job ends. The limit is a count the fill loop
// compares against, so the hot path stays allocation-free. The job's
// latency_depth is JobResult.LatencyDepth. Not as fio: latency_percentile=0
// is refused (0 stands for the default, 100); the search cannot be combined
// with io_submit_mode=offload; the summary prints fio's "latency :" line
// only for jobs with a target; the restart keeps rate, steady-state and
// log state as they were.
// The data of unverified writes follows fio's buffer options (see
// Buffers): pseudo-random buffers filled once and scrambled per write
// by default, so no two written blocks are equal; zero_buffers,
// buffer_pattern, refill_buffers; buffer_compress_percentage (each chunk
// random, then zeros or the pattern) and dedupe_percentage (repeat, or a
// working set shared across jobs with dedupe_global). The bytes are not
// fio's, but the shares of duplicate blocks and the compressed sizes are
// within a few percent of fio's on the same job. An explicit
// refill_buffers=0 does not stop the refill that compression implies.
//
// # Engines that move no data
//
// falloc and ftruncate work on the job's file like the other engines
// (fallocate or ftruncate per I/O, counted as fio counts it). cpuio opens
// nothing: each I/O is a read of no bytes that burns the CPU for
// cpuchunks, and the job idles between them so that it uses cpuload
// percent of a CPU, for its runtime. exec runs its program for the
// runtime (each I/O a 50 ms wait on it, no bytes, 10 a second, as fio's), then stops
// it with SIGTERM and, grace_time later, SIGKILL; a program that cannot
// start fails the job (fio's job carries on). filecreate, filestat and
// filedelete work on nrfiles files per clone, fio's jobname.clone.N in
// the directory (laid out first, but for filecreate and with
// create_on_open): the I/O covers each file's bytes a block at a time,
// and each file's first block makes the engine's call (open with
// O_CREAT, stat, unlink), whose time is that I/O's clat; the others
// record none, and no lat is recorded, as in fio's output. A direction
// that moved no bytes reports runtime 0, as fio's.
//
// # Jobs of several files
//
// With nrfiles above 1 the engines that move data (sync, psync,
// pvsync2, libaio, io_uring, posixaio, null) serve several files per
// clone, as fio 3.33 does: the files are named as fio names them
// (jobname.clone.filenum in the directory, or filename_format, where a
// repeated name is a file of its own each time), each gets filesize
// bytes (a range drawn from fio's generator), else size split over them
// (size is the total), and each has its own offsets: a sequential
// position per direction and a random map. file_service_type picks the
// file of each I/O with fio's rule and fio's generators (roundrobin,
// sequential, random and their :N, zipf, pareto, normal), so the files
// are served in fio's order; a file that has run out is done, and the
// loop ends once every file is (the non-uniform services start a file
// over instead); openfiles below nrfiles serves a file not open only
// once an open one is done. One engine moves the data of all the files
// (engines.Unit.File); a job of one file pays nothing for it.
// With a random_distribution other than random the I/O counts are
// fio's but not how they fall on the files: fio counts a file done
// where its distribution draws past the file's end. unlink_each_loop
// removes and makes again the job's files between loops. Not with several files: verify, trims, offset modifiers,
// percentage_random, zonemode=strided, read_iolog, file_append,
// fill_device, size=N%, offset=N%, create_on_open, sync_file_range, and
// the engines mmap, falloc, ftruncate, cpuio and exec.
//
// # Order of jobs
//
// RunJobs starts the jobs together, as fio does, except that a job waits
// for every job before the last stonewall at or before it, for the job
// its wait_for names, and then for its startdelay.
//
// # Scratch targets and orphans
//
// NewScratch lays out a throw-away file, optionally behind a loop device,
// named "stortest-scratch-<pid>.<starttime>-<random>.img" after the
// process that made it (internal/owner). A process killed before its
// cleanup (SIGKILL, a CI timeout) leaves the device attached and the file
// behind; CleanOrphans, in the next stortest process, detaches and removes
// what belongs to processes that are gone, with a line for each. Files
// kept on purpose (ScratchOptions.Keep) carry no owner and stay.
package fiojob
