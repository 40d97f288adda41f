// Package workload describes storage workloads the way fio does: the Job
// (fio's options under Go names, in sub-structs named for what they hold),
// its defaults, and the Result of a run with its per-second series.
// Package workload/validate checks a Job, package workload/fiojob reads
// fio's job files and command lines, package workload/iogen makes the per-I/O
// decisions, package workload/runner runs jobs and package workload/fioout
// writes fio's outputs of a result.
package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"stortest.dev/engines"
	"stortest.dev/internal/enum"
	"stortest.dev/latency"
)

// RW is fio's rw (readwrite) option: the direction and order of I/O.
type RW uint8

const (
	Read          RW = iota // sequential reads (fio's default)
	Write                   // sequential writes
	RandRead                // random reads
	RandWrite               // random writes
	ReadWrite               // sequential mixed reads and writes ("rw", "readwrite")
	RandRW                  // random mixed reads and writes
	Trim                    // sequential trims (discards)
	RandTrim                // random trims
	TrimWrite               // sequential: each block trimmed, then written
	RandTrimWrite           // random: each block trimmed, then written
)

var rwNames = [...]string{"read", "write", "randread", "randwrite", "rw", "randrw", "trim", "randtrim", "trimwrite", "randtrimwrite"}

// NumRW is one more than the last RW.
const NumRW = RW(len(rwNames))

// String returns fio's name of the pattern.
func (rw RW) String() string { return enum.Name(rwNames[:], rw, "RW") }

// ParseRW parses fio's rw names; "readwrite" is "rw".
func ParseRW(s string) (RW, error) {
	if s == "readwrite" {
		return ReadWrite, nil
	}
	for i, n := range rwNames {
		if s == n {
			return RW(i), nil
		}
	}
	if strings.Contains(s, ":") {
		return 0, Unsupported("rw=" + s + " (an offset modifier)")
	}
	return 0, fmt.Errorf("unknown rw %q (want %s or readwrite)", s, strings.Join(rwNames[:], ", "))
}

// Random reports whether offsets are random.
func (rw RW) Random() bool {
	return rw == RandRead || rw == RandWrite || rw == RandRW || rw == RandTrim || rw == RandTrimWrite
}

// Mixed reports whether the job both reads and writes.
func (rw RW) Mixed() bool { return rw == ReadWrite || rw == RandRW }

// Reads reports whether the job issues reads.
func (rw RW) Reads() bool { return rw == Read || rw == RandRead || rw.Mixed() }

// Writes reports whether the job issues writes.
func (rw RW) Writes() bool { return rw == Write || rw == RandWrite || rw.Mixed() || rw.TrimWrites() }

// Trims reports whether the job issues trims.
func (rw RW) Trims() bool { return rw >= Trim && rw <= RandTrimWrite }

// Modifies reports whether the job changes the data on its target: it
// writes or trims (opens it read-write, and is destructive on a device).
func (rw RW) Modifies() bool { return rw.Writes() || rw.Trims() }

// TrimWrites reports whether the job writes each block right after
// trimming it (trimwrite, randtrimwrite).
func (rw RW) TrimWrites() bool { return rw == TrimWrite || rw == RandTrimWrite }

// MarshalText writes fio's name, so JSON holds "randread".
func (rw RW) MarshalText() ([]byte, error) {
	return nameText(rw, int(rw) < len(rwNames), "RW")
}

// UnmarshalText parses fio's name.
func (rw *RW) UnmarshalText(b []byte) error { return parseText(rw, b, ParseRW, "") }

// nameText is the MarshalText of a fio enum: its name, or an error
// naming the type when v is not one of its values (valid false).
func nameText[T interface {
	~uint8
	fmt.Stringer
}](v T, valid bool, typ string) ([]byte, error) {
	if !valid {
		return nil, fmt.Errorf("workload: invalid %s %d", typ, uint8(v))
	}
	return []byte(v.String()), nil
}

// parseText is the UnmarshalText of a fio enum: parse's value of b, or
// its error after "workload: " and what (the option, where parse's
// errors do not name it).
func parseText[T any](dst *T, b []byte, parse func(string) (T, error), what string) error {
	v, err := parse(string(b))
	if err != nil {
		return fmt.Errorf("workload: %s%w", what, err)
	}
	*dst = v
	return nil
}

// VerifyKind is the checksum of fio's verify option.
type VerifyKind uint8

const (
	VerifyNone     VerifyKind = iota // no verification (fio's verify=0)
	VerifyCRC32C                     // CRC-32C (Castagnoli), hardware-accelerated
	VerifySHA256                     // SHA-256
	VerifyMD5                        // MD5
	VerifyCRC64                      // CRC-64 (ECMA-182)
	VerifyCRC32                      // CRC-32 (IEEE)
	VerifyCRC16                      // CRC-16 (the Linux kernel's, polynomial 0x8005)
	VerifyCRC7                       // CRC-7 (the Linux kernel's, polynomial 0x09)
	VerifyXXHash                     // xxHash32, seed 0
	VerifySHA1                       // SHA-1
	VerifySHA512                     // SHA-512, its first 32 bytes kept
	VerifySHA3_224                   // SHA3-224
	VerifySHA3_256                   // SHA3-256
	VerifySHA3_384                   // SHA3-384, its first 32 bytes kept
	VerifySHA3_512                   // SHA3-512, its first 32 bytes kept
	// VerifyMeta checks the header only (offset, generation, length),
	// not the data: fio's verify=meta.
	VerifyMeta
	// VerifyPattern checks that the data is VerifyPattern: fio's
	// verify=pattern (the header is checked too).
	VerifyPatternKind
	// VerifyNull reads the blocks back and checks nothing: fio's
	// verify=null, "only pretend to verify".
	VerifyNull
)

var verifyNames = [...]string{"0", "crc32c", "sha256", "md5", "crc64", "crc32", "crc16", "crc7", "xxhash",
	"sha1", "sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512", "meta", "pattern", "null"}

// NumVerifyKinds is one more than the last VerifyKind.
const NumVerifyKinds = VerifyKind(len(verifyNames))

// String returns fio's name; VerifyNone is "0", as fio prints it.
func (v VerifyKind) String() string { return enum.Name(verifyNames[:], v, "VerifyKind") }

// ParseVerifyKind parses fio 3.33's verify names: 0 (or none), crc32c
// (crc32c-intel is a synonym), sha256, md5, crc64, crc32, crc16, crc7,
// xxhash, sha1, sha512, sha3-224, sha3-256, sha3-384, sha3-512, meta,
// pattern and null.
func ParseVerifyKind(s string) (VerifyKind, error) {
	switch s {
	case "0", "none":
		return VerifyNone, nil
	case "crc32c-intel":
		return VerifyCRC32C, nil
	}
	for i, n := range verifyNames[1:] {
		if s == n {
			return VerifyKind(i + 1), nil
		}
	}
	return 0, fmt.Errorf("unknown verify %q (want 0, %s)", s, strings.Join(verifyNames[1:], ", "))
}

// MarshalText writes fio's name.
func (v VerifyKind) MarshalText() ([]byte, error) {
	return nameText(v, int(v) < len(verifyNames), "VerifyKind")
}

// UnmarshalText parses fio's name.
func (v *VerifyKind) UnmarshalText(b []byte) error {
	return parseText(v, b, ParseVerifyKind, "")
}

// BlockSizeRange is fio's bsrange: sizes are multiples of Min up to Max,
// chosen uniformly. The zero value means "not set".
type BlockSizeRange struct {
	Min int64 `json:"min"` // bytes
	Max int64 `json:"max"` // bytes
}

// IsZero reports whether the range is unset.
func (r BlockSizeRange) IsZero() bool { return r == BlockSizeRange{} }

// String prints fio's syntax, "4k-64k".
func (r BlockSizeRange) String() string { return FormatSize(r.Min) + "-" + FormatSize(r.Max) }

// BlockSizeSplit is one entry of fio's bssplit: Percent of the I/Os use Size.
type BlockSizeSplit struct {
	Size    int64 `json:"size"`    // bytes
	Percent int   `json:"percent"` // 0-100; the entries of a job sum to 100
}

// Job describes one workload with fio's options under Go names. The zero
// value of a field means fio's default (see Normalized); Parse returns
// normalized jobs. A Job validates (validate.Job), prints as a fio job file
// (fiojob.Format, which Parse reads back to the same Job) and marshals to
// deterministic JSON (MarshalJSON): it is stored in baselines so that runs
// compare like with like.
type Job struct {
	Name string `json:"name"` // job section name; fio's name=
	// Section is the job file's section name when name= renamed the
	// job: fio names the job's files after it, and every clone but the
	// first (numjobs). Empty means Name.
	Section     string `json:"section,omitempty"`
	Description string `json:"description,omitempty"` // free text; not measured
	// Filename is the file or block device. Empty means the target the
	// runner is given. One file only: fio's ':' list is not supported.
	Filename string `json:"filename,omitempty"`
	// AllowMountedWrite is fio's allow_mounted_write=1: a job that writes
	// or trims a block device that is mounted, has a mounted partition,
	// is held by another device or is used as swap runs all the same.
	// Without it such a job is refused before any I/O (stortest run, and
	// the test API, which also wants the device listed in
	// STORTEST_ALLOW_DESTRUCTIVE).
	AllowMountedWrite bool `json:"allow_mounted_write,omitempty"`
	// Engine is fio's ioengine: null, sync, psync, pvsync2, libaio,
	// io_uring, mmap, posixaio, net (see Net) or an engine that moves no
	// data (see NoDataEngines). Default psync, as fio on Linux.
	Engine string `json:"ioengine"`
	RW     RW     `json:"rw"`
	// RWMixRead is the percentage of reads in rw/randrw jobs; default 50.
	// fio's rwmixwrite=W is RWMixRead=100-W.
	RWMixRead int `json:"rwmixread"`
	// BlockSize is fio's bs in bytes; default 4096 when neither
	// BlockSizeRange nor BlockSizeSplit is set. At most one of the three
	// is set; offsets are aligned to the smallest block size.
	BlockSize      int64            `json:"bs,omitempty"`
	BlockSizeRange BlockSizeRange   `json:"bsrange,omitzero"`
	BlockSizeSplit []BlockSizeSplit `json:"bssplit,omitempty"`
	IODepth        int              `json:"iodepth"` // I/Os in flight; default 1
	// IODepthBatch is fio's iodepth_batch_submit (iodepth_batch): I/Os
	// queued before one submit; default 1. fio's 0 ("use iodepth") is
	// resolved by the parser to IODepth.
	IODepthBatch int `json:"iodepth_batch"`
	// IODepthBatchCompleteMin and IODepthBatchCompleteMax are fio's
	// iodepth_batch_complete_min and _max: once the queue is full, the
	// runner waits for at least Min completions and takes at most Max in
	// one reap. Defaults are fio's: Min 1 and Max = Min (0), so one completion
	// is taken, stamped and refilled at a time and a completion waiting in
	// the kernel's queue counts in its clat, as in fio's figures.
	// Max = IODepth takes whole batches: fewer calls, lower clat.
	IODepthBatchCompleteMin int `json:"iodepth_batch_complete_min,omitempty"`
	IODepthBatchCompleteMax int `json:"iodepth_batch_complete_max,omitempty"`
	// IODepthLow is fio's iodepth_low: once the queue is full, the runner
	// reaps until at most IODepthLow I/Os are in flight before queueing
	// again. Default (0): IODepth, keep the queue full.
	IODepthLow int `json:"iodepth_low,omitempty"`
	NumJobs    int `json:"numjobs"` // clones of the job; default 1
	// Size is the region's length in bytes from Offset; 0 means up to the
	// end of the file or device. fio's size=N% is SizePercent.
	Size   int64 `json:"size,omitempty"`
	Offset int64 `json:"offset,omitempty"` // bytes; fio's offset=N% is OffsetPercent
	Direct bool  `json:"direct,omitempty"` // O_DIRECT; fio's buffered=0
	// Runtime caps the job's duration (fio's runtime, default unit
	// seconds); 0 means until Loops passes over the region are done.
	Runtime time.Duration `json:"runtime_ns,omitempty"`
	// TimeBased repeats passes until Runtime is over.
	TimeBased bool `json:"time_based,omitempty"`
	// RampTime runs the workload before measuring (fio's ramp_time). A
	// job that ends inside it reports what it did from its start, without
	// latencies, as fio 3.33 does (it drops the counts when the ramp ends).
	RampTime time.Duration `json:"ramp_time_ns,omitempty"`
	Loops    int           `json:"loops"` // passes over the region; default 1
	// RateIOPS caps I/Os per second per direction (read, write, trim);
	// 0 is no cap. fio's rate_iops=r,w.
	RateIOPS [3]int `json:"rate_iops,omitzero"`
	// Rate caps bytes per second per direction; fio's rate=r,w. Rate and
	// RateIOPS are mutually exclusive, as in fio.
	Rate [3]int64 `json:"rate,omitzero"`
	// FsyncEvery issues an fsync after every N writes (fio's fsync=N).
	FsyncEvery int `json:"fsync,omitempty"`
	// NoRandomMap draws random offsets with replacement. By default a
	// random job visits every block exactly once per pass.
	NoRandomMap bool `json:"norandommap,omitempty"`
	// RandRepeat seeds the generators repeatably (fio's default, true when
	// nil); false seeds them from the entropy the runner passes to
	// iogen.Seed.
	RandRepeat *bool `json:"randrepeat,omitempty"`
	// RandSeed is fio's randseed; 0 means unset (fio's default 0x89 is
	// used when RandRepeat holds).
	RandSeed           uint64       `json:"randseed,omitempty"`
	RandomDistribution Distribution `json:"random_distribution,omitzero"`
	Verify             VerifyKind   `json:"verify,omitzero"`
	// VerifyPattern fills the data area of verified blocks instead of the
	// seeded pseudo-random bytes: fio's verify_pattern in its syntax,
	// 0x-hex and "quoted" strings, concatenated.
	VerifyPattern string `json:"verify_pattern,omitempty"`
	// ContinueOnError is fio's continue_on_error: keep running after
	// failed I/Os (EIO, EILSEQ) of these classes and after verify
	// mismatches; by default the first failure ends the job.
	ContinueOnError ContinueOn `json:"continue_on_error,omitempty"`
	// NoVerifyPhase is fio's do_verify=0: verified blocks are written
	// (headers and checksums) but nothing is read back. VerifyBacklog is
	// fio's verify_backlog: read back the blocks written every this many
	// writes rather than after each pass (0).
	NoVerifyPhase bool  `json:"do_verify_off,omitempty"`
	VerifyBacklog int64 `json:"verify_backlog,omitempty"`
	// VerifyOnly is fio's verify_only: a job that writes issues none of
	// its workload's I/Os but draws them as it would (counting them in
	// its results' I/Os and bytes, as fio counts them, and in DirStats'
	// DryIOs and DryBytes) and reads back the blocks its writes would
	// have written, checking what an earlier run with the same options
	// left there: blocks of fio 3.33's format (verify=md5, crc32c) or of
	// stortest's. It has no effect on a job that does not write, and it
	// cannot be time based.
	VerifyOnly bool `json:"verify_only,omitempty"`

	// Where the job's file is and how much it moves: see Placement.
	Placement
	// When the job starts against the others, and its pace: see Ordering.
	Ordering
	// Offset modifiers and alignment: see OffsetPattern.
	OffsetPattern
	// Parts of the measurement turned off: see Measurement.
	Measurement
	// Least rates: see RateFloor.
	RateFloor
	// The job's I/O priority: see Priority.
	Priority
	// The CPUs its threads run on: see CPUs.
	CPUs
	// FillDevice is fio's fill_device (fill_fs): a job without a size
	// writes until the device or file system is full. On a device the
	// region is the device; on a file it is the file system's free space
	// when the job starts, nothing is laid out first, and ENOSPC or
	// EDQUOT ends the job without an error.
	FillDevice bool `json:"fill_device,omitempty"`
	// Pauses between I/Os: see Think.
	Think
	// When the job ends: see Ending.
	Ending
	// Strided zones: see Zones.
	Zones
	// WriteBlocks are the writes' block sizes of a job that reads and
	// writes with sizes of their own (fio's bs=4k,64k, bsrange and bssplit
	// with a ','); the Job's BlockSize, BlockSizeRange and BlockSizeSplit
	// are then the reads'. nil: both directions use the Job's.
	WriteBlocks *BlockSpec `json:"write_blocks,omitempty"`
	// Notes are what the parser read differently from how it was
	// written, as fio reads it (a size with trailing text);
	// validate.Warnings returns them. They are not part of the workload.
	Notes []string `json:"-"`
	// Options of the engines that move no data: see NoDataEngines.
	NoDataEngines
	// A job of several files: see MultiFile.
	MultiFile
	// Options of the net engine: see Net.
	Net
	// Submission mode, rate process, overlap: see Submission.
	Submission
	// Syncs of the writes: see Syncs.
	Syncs
	// CreateOnly is fio's create_only: lay out the job's file and do no
	// I/O.
	CreateOnly bool `json:"create_only,omitempty"`
	// The page cache and hints around the I/O: see PageCache.
	PageCache
	// OffsetIncrement is fio's offset_increment: clone k of the job
	// (numjobs) starts at Offset + k*OffsetIncrement, and its file is
	// laid out to its own region's end.
	OffsetIncrement int64 `json:"offset_increment,omitempty"`
	// AllRandRepeat is fio's allrandrepeat: every generator is seeded
	// repeatably, even with randrepeat=0 (stortest's generators all draw
	// from the job's seed).
	AllRandRepeat bool `json:"allrandrepeat,omitempty"`
	// WriteHint is fio's write_hint, the kernel's write life time hint
	// (RWH_WRITE_LIFE_*: 1 none, 2 short, 3 medium, 4 long, 5 extreme; 0
	// unset) set with fcntl when the file is opened: F_SET_RW_HINT on the
	// inode, or, with direct=1, F_SET_FILE_RW_HINT as fio 3.33 does,
	// which kernels since 5.17 refuse (EINVAL), failing the job as fio's.
	WriteHint int `json:"write_hint,omitempty"`
	// FileAppend is fio's file_append: a regular file is not laid out, and
	// the job's region starts at the file's end when it opens it, so its
	// Size bytes extend the file (a missing file is created empty). Write
	// jobs only: reads of what is not written yet are not supported.
	FileAppend bool `json:"file_append,omitempty"`
	// NoOverwrite is fio's overwrite=0 given: a job that writes and does
	// not read lays out a missing or short file by sizing it
	// (ftruncate; fio unlinks it and allocates it with fallocate) rather
	// than by writing it, and then writes it. Without it the file is
	// laid out by writing, as fio's overwrite=1.
	NoOverwrite bool `json:"overwrite_0,omitempty"`
	// NoFileCreate is fio's allow_file_create=0: a file the job names
	// that does not exist is an error (fio: "file creation disallowed by
	// allow_file_create=0") rather than created.
	NoFileCreate bool `json:"allow_file_create_0,omitempty"`
	// SyncIO is fio's sync: "sync" (sync=1) opens the file O_SYNC,
	// "dsync" O_DSYNC; "" (none, 0) neither.
	SyncIO string `json:"sync,omitempty"`
	// PercentSequential is 100 minus fio's percentage_random, by
	// direction (read, write, trim): in a random job, the percent of I/Os
	// that follow the last I/O of their direction rather than draw a
	// random offset (0, the default, all random). A pass is then the
	// region's size moved, as with rw=randread:N.
	PercentSequential [3]int64 `json:"percentage_sequential,omitzero"`
	// I/O logs written and replayed: see IOLogs.
	IOLogs
	// Latency target depth search and max_latency: see LatencyLimits.
	LatencyLimits
	// Contents of written buffers: see Buffers.
	Buffers

	// Engine options, under fio's names: Hipri (io_uring, pvsync2: polled
	// completions / RWF_HIPRI), FixedBufs, RegisterFiles, SQThreadPoll
	// (io_uring), NoWait (pvsync2, libaio, io_uring: RWF_NOWAIT).
	//
	// io_uring registers the job's buffers with the ring when neither
	// FixedBufs nor NoFixedBufs is set and the kernel allows it
	// (RLIMIT_MEMLOCK, or CAP_IPC_LOCK), unlike fio, which registers
	// them only with fixedbufs=1: the device sees the same I/O, and the
	// host pins no pages per I/O, about a sixth of the CPU per 4 KiB
	// read on a loop device. FixedBufs (fixedbufs=1) requires the
	// registration, failing the job without it; NoFixedBufs
	// (fixedbufs=0) is fio's default path, pages pinned per I/O.
	Hipri         bool `json:"hipri,omitempty"`
	FixedBufs     bool `json:"fixedbufs,omitempty"`
	NoFixedBufs   bool `json:"fixedbufs_off,omitempty"`
	RegisterFiles bool `json:"registerfiles,omitempty"`
	SQThreadPoll  bool `json:"sqthread_poll,omitempty"`
	NoWait        bool `json:"nowait,omitempty"`

	// PercentileList replaces fio's default percentiles (at most 20, in
	// (0, 100], ascending); nil means DefaultPercentiles.
	PercentileList  []float64 `json:"percentile_list,omitempty"`
	LatPercentiles  bool      `json:"lat_percentiles,omitempty"`
	SlatPercentiles bool      `json:"slat_percentiles,omitempty"`
	// WriteHistLog is the prefix of the completion-latency histogram log
	// (<prefix>_clat_hist.<job>.log), written every LogHistMsec ms.
	WriteHistLog string `json:"write_hist_log,omitempty"`
	LogHistMsec  int    `json:"log_hist_msec,omitempty"`
	// Logs are fio's latency, bandwidth and IOPS logs (see LogOptions).
	Logs LogOptions `json:"logs,omitzero"`
	// NoClatPercentiles is fio's clat_percentiles=0: no clat percentiles
	// (nor json+ bins) in the outputs. UnifiedRW is unified_rw_reporting;
	// GroupReporting (group_reporting) sums the job (each clone) into the
	// entry of the job before it in the outputs when both are of one
	// reporting group (until a stonewall or new_group), as fio 3.33 does.
	NoClatPercentiles bool      `json:"clat_percentiles_off,omitempty"`
	UnifiedRW         UnifiedRW `json:"unified_rw_reporting,omitempty"`
	GroupReporting    bool      `json:"group_reporting,omitempty"`
	// CmdPrio gives I/Os priorities (libaio, io_uring; see CmdPrio).
	CmdPrio CmdPrio `json:"cmdprio,omitzero"`

	// SS is the steady-state criterion in fio's syntax (steadystate=,
	// e.g. "iops_slope:0.1%"); the steady package parses it. SSDur is the
	// window (ss_dur; 0 disables steady-state detection) and SSRamp the
	// time before samples count (ss_ramp).
	SS     string        `json:"steadystate,omitempty"`
	SSDur  time.Duration `json:"ss_dur_ns,omitempty"`
	SSRamp time.Duration `json:"ss_ramp_ns,omitempty"`
}

// fio's defaults, applied by Normalized.
const (
	DefaultEngine    = "psync" // fio's default ioengine on Linux
	DefaultBlockSize = 4096
	DefaultRWMixRead = 50
	DefaultSS        = "iops_slope:0.01%" // fio's steadystate default
	// DefaultSeed is fio's randseed default, used when RandRepeat holds
	// and RandSeed is 0. The mix of reads and writes is drawn as fio
	// draws it (MixSeed); the other generators are not fio's, so
	// offsets and sizes follow a different (but as repeatable) sequence.
	DefaultSeed uint64 = 0x89
)

// DefaultPercentiles is fio's default percentile_list.
var DefaultPercentiles = latency.DefaultPercentiles

// Engines lists the ioengine names a Job accepts (package engines' own
// list), and EngineOptions which engines take each engine-specific
// option.
var (
	Engines       = engines.Names()
	EngineOptions = map[string][]string{
		"hipri":         {"io_uring", "pvsync2"},
		"fixedbufs":     {"io_uring"},
		"registerfiles": {"io_uring"},
		"sqthread_poll": {"io_uring"},
		"nowait":        {"pvsync2", "libaio", "io_uring"},
		"port":          NetEngines,
		"protocol":      NetEngines,
		"listen":        NetEngines,
		"pingpong":      NetEngines,
		"nodelay":       NetEngines,
		"ttl":           NetEngines,
		"window_size":   NetEngines,
		"mss":           NetEngines,
		"interface":     NetEngines,
	}
)

// MaxJobs is fio 3.33's limit on the jobs of a run, each clone (numjobs)
// of each job counting: 4088 (511 segments of 8; fio says "error:
// maximum number of jobs reached." and runs nothing). [global] sections
// do not count. Parsing stops at the job that passes it, before any file
// is opened, and RunJobs refuses more.
const MaxJobs = 4088

// ErrTooManyJobs is more jobs than MaxJobs, clones counting.
var ErrTooManyJobs = errors.New("workload: more jobs than fio's limit")

// tooManyJobs is the ErrTooManyJobs of n jobs.
func TooManyJobs(n int) error {
	return NewMsgError(fmt.Sprintf("%d jobs, counting numjobs clones: more than fio's limit of %d (fio: \"error: maximum number of jobs reached.\")", n, MaxJobs), ErrTooManyJobs)
}

// Limits that catch typos (bs=4g) rather than encode hardware facts.
const (
	MaxBlockSize   = 1 << 30 // bytes; verify headers hold a 32-bit length
	MaxIODepth     = 65536
	MaxNumJobs     = MaxJobs                // numjobs of one job: all of fio's jobs
	MaxPercentiles = latency.MaxPercentiles // fio's limit for percentile_list
	MaxSplits      = 64                     // fio's limit of bssplit entries per direction
)

// Normalized returns a copy of j with fio's default in every field whose
// zero value means "default": Engine, RWMixRead, BlockSize (when no range
// or split is set), IODepth, IODepthBatch, IODepthBatchCompleteMin,
// NumJobs, Loops, RandRepeat,
// PercentileList and, when SSDur is set, SS; RandomDistribution drops
// what does not matter (see Distribution). Defaults that follow another
// field stay zero (IODepthBatchCompleteMax, IODepthLow), so that they
// keep following it. Slices and RandRepeat are copied, so the result
// shares nothing with j.
func (j Job) Normalized() Job {
	if j.Engine == "" {
		j.Engine = DefaultEngine
	}
	if j.RWMixRead == 0 {
		j.RWMixRead = DefaultRWMixRead
	}
	if j.BlockSize == 0 && j.BlockSizeRange.IsZero() && len(j.BlockSizeSplit) == 0 {
		j.BlockSize = DefaultBlockSize
	}
	if j.IODepth == 0 {
		j.IODepth = 1
	}
	if j.IODepthBatch == 0 {
		j.IODepthBatch = 1
	}
	if j.IODepthBatchCompleteMin == 0 {
		j.IODepthBatchCompleteMin = 1
	}
	if j.NumJobs == 0 {
		j.NumJobs = 1
	}
	if j.Loops == 0 {
		j.Loops = 1
	}
	repeat := true
	if j.RandRepeat != nil {
		repeat = *j.RandRepeat
	}
	j.RandRepeat = &repeat
	if j.PercentileList == nil {
		j.PercentileList = DefaultPercentiles
	}
	j.PercentileList = slices.Clone(j.PercentileList)
	j.BlockSizeSplit = slices.Clone(j.BlockSizeSplit)
	j.RandomDistribution = j.RandomDistribution.Canonical()
	if j.SSDur > 0 && j.SS == "" {
		j.SS = DefaultSS
	}
	j.normalizeEngines()
	return j
}

// Bool returns a pointer to b, for Job.RandRepeat.
func Bool(b bool) *bool { return &b }

// MinBlockSize returns the smallest block size of the job (offset
// alignment), MaxBlockSize the largest; both of the normalized job.
func (j *Job) MinBlockSize() int64 {
	m := j.BlocksOf().MinSize()
	if w := j.WriteBlocks; w != nil {
		m = min(m, w.MinSize())
	}
	return m
}

// MaxBlockSize returns the largest block size of the job.
func (j *Job) MaxBlockSize() int64 {
	m := j.BlocksOf().MaxSize()
	if w := j.WriteBlocks; w != nil {
		m = max(m, w.MaxSize())
	}
	return m
}

// MinSize returns the smallest block size of b.
func (b BlockSpec) MinSize() int64 {
	lo, _ := b.sizes()
	return lo
}

// MaxSize returns the largest block size of b.
func (b BlockSpec) MaxSize() int64 {
	_, hi := b.sizes()
	return hi
}

// sizes returns the smallest and the largest block size of b.
func (b BlockSpec) sizes() (lo, hi int64) {
	switch {
	case len(b.BlockSizeSplit) > 0:
		lo, hi = b.BlockSizeSplit[0].Size, b.BlockSizeSplit[0].Size
		for _, s := range b.BlockSizeSplit[1:] {
			lo, hi = min(lo, s.Size), max(hi, s.Size)
		}
		return lo, hi
	case !b.BlockSizeRange.IsZero():
		return b.BlockSizeRange.Min, b.BlockSizeRange.Max
	case b.BlockSize == 0:
		return DefaultBlockSize, DefaultBlockSize
	}
	return b.BlockSize, b.BlockSize
}

// ErrInvalid is wrapped by every error of validate.Job and by the
// option readers' bad values.
var ErrInvalid = errors.New("workload: invalid job")

// FieldError is a failure of validate.Job (package workload/validate):
// Field is the fio option's name. It stays with the model, so that
// errors.As finds it wherever a job is checked.
type FieldError struct {
	Job    string
	Field  string
	Reason string
	// Err is the cause, when another package's (a steady.ErrSyntax
	// for a bad steadystate); it matches too.
	Err error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("workload: job %q: %s: %s", e.Job, e.Field, e.Reason)
}

// Unwrap returns ErrInvalid, and Err when set.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// jobJSON is Job without its methods, so MarshalJSON can use the default
// encoding.
type jobJSON Job

// MarshalJSON encodes the normalized job: field order is fixed, defaults
// are explicit, so equal workloads encode to equal bytes.
func (j Job) MarshalJSON() ([]byte, error) {
	return json.Marshal(jobJSON(j.Normalized()))
}

func (j *Job) Percentiles() []float64 {
	if len(j.PercentileList) == 0 {
		return DefaultPercentiles
	}
	return j.PercentileList
}
