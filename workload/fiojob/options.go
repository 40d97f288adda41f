package fiojob

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/engines"
	"stortest.dev/fio"
	"stortest.dev/workload"
)

// optionTable is the one table of the fio options stortest accepts: for
// each, fio's name and aliases, how its value sets the Job (set, and bare
// for the options that mean something without a value), and its row of
// the table in doc.go (doc; TestDocTable keeps doc.go's table the
// rendering of this one, go test -run TestDocTable -update rewrites it).
// The parser looks options up here (lookupOption); the options as given
// (FioGiven) print as fio prints them, under the name and with the value
// as written, for every option alike. Every other fio 3.33 name (package
// fio's IsOption and IsCommandLineOption) is refused as unsupported.
// Adding an option: its entry here, the Job field it sets (with its
// validation and printing), the runtime that acts on it, and a test.
var optionTable = []fioOption{
	// The job, its target, pattern, block sizes, depth, amount, time, rate,
	// randomness, verification, engine flags, percentiles and steady state.
	{name: "name", field: "name", doc: "Name; on a command line, starts a new job",
		set: func(st *jobState, v string) error {
			// name= in a section renames the job; the section's name
			// stays for its files and later clones, as in fio.
			if j := &st.job; j.Section == "" && j.Name != "" && v != j.Name {
				j.Section = j.Name
			}
			st.job.Name = v
			return nil
		}},
	{name: "description", field: "description", doc: "Description",
		set: setString(func(j *workload.Job) *string { return &j.Description })},
	{name: "filename", field: "filename", doc: `Filename; one file (\: escapes a colon)`,
		set: func(st *jobState, v string) error {
			var b strings.Builder
			for i := 0; i < len(v); i++ {
				switch {
				case v[i] == '\\' && i+1 < len(v) && v[i+1] == ':':
					b.WriteByte(':')
					i++
				case v[i] == ':':
					return workload.Unsupported("filename=" + v + ": several files")
				default:
					b.WriteByte(v[i])
				}
			}
			st.job.Filename = b.String()
			return nil
		}},
	{name: "filename_format", field: "filename_format", doc: "FilenameFormat: $jobname, $jobnum, $filenum, $clientuid (empty)",
		set: setString(func(j *workload.Job) *string { return &j.FilenameFormat })},
	{name: "cpus_allowed", field: "cpus_allowed", doc: "CPUsAllowed: CPUs and ranges, 0-3,6",
		set: func(st *jobState, v string) error {
			_, err := fio.ParseCPUList(v)
			st.job.CPUsAllowed = v
			return err
		}},
	{name: "cpumask", field: "cpus_allowed", doc: "CPUsAllowed: a bit per CPU (the low 32)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, math.MaxInt64)
			st.job.CPUsAllowed = cpuMaskList(n)
			return err
		}},
	{name: "cpus_allowed_policy", field: "cpus_allowed_policy", doc: "CPUsSplit: shared (each thread on every CPU), split (one CPU each)",
		set: func(st *jobState, v string) error {
			switch v {
			case "shared", "split":
				st.job.CPUsSplit = v == "split"
				return nil
			}
			return fmt.Errorf("%q is not shared or split", v)
		}},
	{name: "allow_mounted_write", field: "allow_mounted_write", isBool: true, doc: "AllowMountedWrite: write or trim a block device that is mounted, held or swap",
		set: setBool(func(j *workload.Job) *bool { return &j.AllowMountedWrite })},
	{name: "ioengine", field: "ioengine", doc: "Engine: " + strings.Join(engines.Names(), ", "),
		set: func(st *jobState, v string) error {
			st.job.Engine = v
			return unsupportedEngine(v)
		}},
	{name: "rw", aliases: []string{"readwrite"}, field: "rw", doc: "RW: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite, randtrimwrite; :N is RWModifier",
		set: func(st *jobState, v string) error {
			rw, mod, err := parseRWModifier(v)
			st.job.RW, st.job.RWModifier = rw, mod
			return err
		}},
	{name: "rwmixread", field: "rwmixread", doc: "RWMixRead (percent)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 100)
			st.job.RWMixRead, st.mixZero = int(n), n == 0
			return err
		}},
	{name: "rwmixwrite", field: "rwmixread", doc: "RWMixRead = 100 - value",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 100)
			st.job.RWMixRead, st.mixZero = 100-int(n), n == 100
			return err
		}},
	{name: "bs", aliases: []string{"blocksize"}, field: "bs", doc: "BlockSize; r,w,t: see WriteBlocks; r-w and r:w are r,w (not a range: fio 3.33 reads them so)",
		set: func(st *jobState, v string) error {
			return perDirection("bs", func(st *jobState, v string) error {
				n, err := parseBlockSize(v)
				st.job.BlockSize, st.job.BlockSizeRange, st.job.BlockSizeSplit = n, workload.BlockSizeRange{}, nil
				return err
			})(st, directionsOf(v))
		}},
	{name: "bsrange", aliases: []string{"blocksize_range"}, field: "bsrange", doc: "BlockSizeRange: min-max (or min:max); r,w,t: see WriteBlocks",
		set: perDirection("bsrange", func(st *jobState, v string) error {
			lo, hi, ok := strings.Cut(v, "-")
			if !ok {
				lo, hi, ok = strings.Cut(v, ":")
			}
			if !ok {
				return fmt.Errorf("%q is not a range min-max", v)
			}
			a, err := st.lenientBlockSize("bsrange", v, strings.TrimSpace(lo))
			if err != nil {
				return err
			}
			b, err := st.lenientBlockSize("bsrange", v, strings.TrimSpace(hi))
			if err != nil {
				return err
			}
			if a > b { // fio swaps a reversed range
				a, b = b, a
			}
			st.job.BlockSize, st.job.BlockSizeRange, st.job.BlockSizeSplit = 0, workload.BlockSizeRange{Min: a, Max: b}, nil
			return nil
		})},
	{name: "bssplit", field: "bssplit", doc: "BlockSizeSplit: size/percent:size/percent...; blank percentages share the rest; r,w,t: see WriteBlocks",
		set: perDirection("bssplit", func(st *jobState, v string) error {
			split, err := parseSplit(v)
			st.job.BlockSize, st.job.BlockSizeRange, st.job.BlockSizeSplit = 0, workload.BlockSizeRange{}, split
			return err
		})},
	{name: "iodepth", field: "iodepth", doc: "IODepth",
		set: setInt(1, workload.MaxIODepth, func(j *workload.Job) *int { return &j.IODepth })},
	{name: "iodepth_batch_submit", aliases: []string{"iodepth_batch"}, field: "iodepth_batch_submit", doc: "IODepthBatch; 0 means iodepth",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, workload.MaxIODepth)
			st.job.IODepthBatch, st.batchZero = int(n), n == 0
			return err
		}},
	{name: "iodepth_batch_complete_min", aliases: []string{"iodepth_batch_complete"}, field: "iodepth_batch_complete_min",
		doc: "IODepthBatchCompleteMin; 0 means 1",
		set: setInt(0, workload.MaxIODepth, func(j *workload.Job) *int { return &j.IODepthBatchCompleteMin })},
	{name: "iodepth_batch_complete_max", field: "iodepth_batch_complete_max", doc: "IODepthBatchCompleteMax; 0 means the min",
		set: setInt(0, workload.MaxIODepth, func(j *workload.Job) *int { return &j.IODepthBatchCompleteMax })},
	{name: "iodepth_low", field: "iodepth_low", doc: "IODepthLow; 0 means iodepth",
		set: setInt(0, workload.MaxIODepth, func(j *workload.Job) *int { return &j.IODepthLow })},
	{name: "numjobs", field: "numjobs", doc: "NumJobs",
		set: setInt(1, math.MaxInt32, func(j *workload.Job) *int { return &j.NumJobs })}, // MaxJobs: at the job's end
	{name: "size", field: "size", doc: "Size (bytes); N% (or N%%): SizePercent",
		set: func(st *jobState, v string) error {
			n, ok, err := parseSizePercent(v)
			if ok {
				st.job.Size, st.job.SizePercent = 0, n
				return err
			}
			st.job.SizePercent = 0
			return setSize(func(j *workload.Job) *int64 { return &j.Size })(st, v)
		}},
	{name: "offset", aliases: []string{"fileoffset"}, field: "offset", doc: "Offset (bytes); N% (or N%%): OffsetPercent",
		set: func(st *jobState, v string) error {
			if num, ok := strings.CutSuffix(v, "%"); ok {
				n, err := strconv.Atoi(strings.TrimSpace(strings.TrimRight(num, "%")))
				if err != nil || n < 0 || n > 100 {
					return fmt.Errorf("%q is not a percentage from 0%% to 100%%", v)
				}
				st.job.Offset, st.job.OffsetPercent = 0, n
				return nil
			}
			st.job.OffsetPercent = 0
			return setSize(func(j *workload.Job) *int64 { return &j.Offset })(st, v)
		}},
	{name: "direct", field: "direct", isBool: true, doc: "Direct",
		set: setBool(func(j *workload.Job) *bool { return &j.Direct })},
	{name: "buffered", field: "direct", isBool: true, doc: "Direct = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.Direct = !b
			return err
		}},
	{name: "runtime", aliases: []string{"timeout"}, field: "runtime", doc: "Runtime (default unit s)",
		set: setTime(func(j *workload.Job) *time.Duration { return &j.Runtime })},
	{name: "time_based", field: "time_based", isBool: true, doc: "TimeBased",
		set: setBool(func(j *workload.Job) *bool { return &j.TimeBased })},
	{name: "ramp_time", field: "ramp_time", doc: "RampTime (default unit s)",
		set: setTime(func(j *workload.Job) *time.Duration { return &j.RampTime })},
	{name: "loops", field: "loops", doc: "Loops",
		set: setInt(1, 1<<31-1, func(j *workload.Job) *int { return &j.Loops })},
	{name: "rate_iops", field: "rate_iops", doc: "RateIOPS: r[,w[,t]]",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, func(s string) (int64, error) { return ParseCount(s, 1<<31-1) })
			st.job.RateIOPS = [3]int{int(t[0]), int(t[1]), int(t[2])}
			return err
		}},
	{name: "rate", field: "rate", doc: "Rate (bytes/s): r[,w[,t]]",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, ParseSize)
			st.job.Rate = t
			return err
		}},
	{name: "fsync", field: "fsync", doc: "FsyncEvery (writes)",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.FsyncEvery })},
	{name: "norandommap", field: "norandommap", isBool: true, doc: "NoRandomMap",
		set: setBool(func(j *workload.Job) *bool { return &j.NoRandomMap })},
	{name: "randrepeat", field: "randrepeat", isBool: true, doc: "RandRepeat",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.RandRepeat = workload.Bool(b)
			return err
		}},
	{name: "randseed", field: "randseed", doc: "RandSeed (decimal or 0x hex)",
		set: func(st *jobState, v string) error {
			var n uint64
			var err error
			if h, ok := strings.CutPrefix(strings.ToLower(v), "0x"); ok {
				n, err = strconv.ParseUint(h, 16, 64)
			} else {
				n, err = strconv.ParseUint(v, 10, 64)
			}
			if err != nil {
				return fmt.Errorf("%q is not a decimal or 0x-hexadecimal seed", v)
			}
			st.job.RandSeed = n
			return nil
		}},
	{name: "random_distribution", field: "random_distribution", doc: "RandomDistribution: random, zipf:theta[:c], pareto:h[:c], normal:dev[:c], zoned:a/r:..., zoned_abs:a/size:...",
		set: func(st *jobState, v string) error {
			d, err := fio.ParseDistribution(v)
			st.job.RandomDistribution = d
			return err
		}},
	{name: "verify", field: "verify", doc: "Verify: 0 (none), crc32c (crc32c-intel), sha256, md5, crc64, crc32, crc16, crc7, xxhash, sha1, sha512, sha3-*, meta, pattern, null",
		set: func(st *jobState, v string) error {
			k, err := workload.ParseVerifyKind(v)
			st.job.Verify = k
			return err
		}},
	{name: "verify_pattern", field: "verify_pattern", doc: `VerifyPattern: 0x hex and "quoted" text`,
		set: func(st *jobState, v string) error {
			_, err := fio.ParseVerifyPattern(v)
			st.job.VerifyPattern = v
			return err
		}},
	{name: "continue_on_error", field: "continue_on_error", doc: "ContinueOnError: none, read, write, io, verify, all (0, 1)",
		set: func(st *jobState, v string) error {
			c, err := workload.ParseContinueOn(v)
			st.job.ContinueOnError = c
			return err
		}},
	{name: "hipri", field: "hipri", isBool: true, doc: "Hipri (io_uring, pvsync2)",
		set: setBool(func(j *workload.Job) *bool { return &j.Hipri })},
	{name: "fixedbufs", field: "fixedbufs", isBool: true, doc: "FixedBufs = value, NoFixedBufs = !value (io_uring; unset: registered when the kernel allows)",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.FixedBufs, st.job.NoFixedBufs = b, !b
			return err
		}},
	{name: "registerfiles", field: "registerfiles", isBool: true, doc: "RegisterFiles (io_uring)",
		set: setBool(func(j *workload.Job) *bool { return &j.RegisterFiles })},
	{name: "sqthread_poll", field: "sqthread_poll", isBool: true, doc: "SQThreadPoll (io_uring)",
		set: setBool(func(j *workload.Job) *bool { return &j.SQThreadPoll })},
	{name: "nowait", field: "nowait", isBool: true, doc: "NoWait (pvsync2, libaio, io_uring)",
		set: setBool(func(j *workload.Job) *bool { return &j.NoWait })},
	{name: "percentile_list", field: "percentile_list", doc: "PercentileList: p:p:...; sorted, cut at the first 0",
		set: func(st *jobState, v string) error {
			var ps []float64
			for _, s := range strings.Split(v, ":") {
				p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return fmt.Errorf("%q is not a number", s)
				}
				if p == 0 {
					break // fio ends the list at the first 0
				}
				ps = append(ps, p)
			}
			slices.Sort(ps)
			st.job.PercentileList = slices.Compact(ps)
			if len(st.job.PercentileList) == 0 {
				return errors.New("no percentile before the first 0")
			}
			return nil
		}},
	{name: "lat_percentiles", field: "lat_percentiles", isBool: true, doc: "LatPercentiles",
		set: setBool(func(j *workload.Job) *bool { return &j.LatPercentiles })},
	{name: "slat_percentiles", field: "slat_percentiles", isBool: true, doc: "SlatPercentiles",
		set: setBool(func(j *workload.Job) *bool { return &j.SlatPercentiles })},
	{name: "write_hist_log", field: "write_hist_log", doc: "WriteHistLog (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[3], st.job.WriteHistLog = true, "" },
		set:  setString(func(j *workload.Job) *string { return &j.WriteHistLog })},
	{name: "log_hist_msec", field: "log_hist_msec", doc: "LogHistMsec",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.LogHistMsec })},
	{name: "steadystate", aliases: []string{"ss"}, field: "steadystate", doc: "SS, e.g. iops_slope:0.1%",
		set: setString(func(j *workload.Job) *string { return &j.SS })},
	{name: "ss_dur", aliases: []string{"steadystate_duration"}, field: "ss_dur", doc: "SSDur (default unit s)",
		set: setTime(func(j *workload.Job) *time.Duration { return &j.SSDur })},
	{name: "ss_ramp", aliases: []string{"steadystate_ramp_time"}, field: "ss_ramp", doc: "SSRamp (default unit s)",
		set: setTime(func(j *workload.Job) *time.Duration { return &j.SSRamp })},
	{name: "kb_base", field: "kb_base", doc: "1024 only (the default)",
		set: func(_ *jobState, v string) error {
			if v != "1024" {
				return workload.Unsupported("kb_base=" + v)
			}
			return nil
		}},

	// What a run reports and logs rather than the I/O it does (Job.Logs,
	// UnifiedRW, GroupReporting, ...).
	{name: "clat_percentiles", field: "clat_percentiles", isBool: true, doc: "NoClatPercentiles = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoClatPercentiles = !b
			return err
		}},
	{name: "unified_rw_reporting", field: "unified_rw_reporting", doc: "UnifiedRW: none, mixed, both (0, 1, 2)",
		set: func(st *jobState, v string) error {
			u, err := parseUnifiedRW(v)
			st.job.UnifiedRW = u
			return err
		}},
	{name: "group_reporting", field: "group_reporting", isBool: true, doc: "GroupReporting: a reporting group's jobs report as one",
		set: setBool(func(j *workload.Job) *bool { return &j.GroupReporting })},
	{name: "write_lat_log", field: "write_lat_log", doc: "Logs.Lat (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[0], st.job.Logs.Lat = true, "" },
		set:  setString(func(j *workload.Job) *string { return &j.Logs.Lat })},
	{name: "write_bw_log", field: "write_bw_log", doc: "Logs.BW (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[1], st.job.Logs.BW = true, "" },
		set:  setString(func(j *workload.Job) *string { return &j.Logs.BW })},
	{name: "write_iops_log", field: "write_iops_log", doc: "Logs.IOPS (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[2], st.job.Logs.IOPS = true, "" },
		set:  setString(func(j *workload.Job) *string { return &j.Logs.IOPS })},
	{name: "log_avg_msec", field: "log_avg_msec", doc: "Logs.AvgMsec; 0 logs every I/O",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.Logs.AvgMsec })},
	{name: "log_offset", field: "log_offset", isBool: true, doc: "Logs.Offset",
		set: setBool(func(j *workload.Job) *bool { return &j.Logs.Offset })},
	{name: "log_prio", field: "log_prio", isBool: true, doc: "Logs.Prio",
		set: setBool(func(j *workload.Job) *bool { return &j.Logs.Prio })},
	{name: "per_job_logs", field: "per_job_logs", isBool: true, doc: "Logs.Shared = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.Logs.Shared = !b
			return err
		}},

	// Priorities of single I/Os (CmdPrio).
	{name: "cmdprio_percentage", field: "cmdprio_percentage", doc: "CmdPrio.Percentage: r[,w] (libaio, io_uring)",
		set: func(st *jobState, v string) error {
			p, err := parsePair(v, 0, 100)
			st.job.CmdPrio.Percentage = p
			return err
		}},
	{name: "cmdprio_class", field: "cmdprio_class", doc: "CmdPrio.Class: r[,w], 1-3 (libaio, io_uring)",
		set: func(st *jobState, v string) error {
			p, err := parsePair(v, 1, 3)
			st.job.CmdPrio.Class = p
			return err
		}},
	{name: "cmdprio", field: "cmdprio", doc: "CmdPrio.Level: r[,w], 0-7 (libaio, io_uring)",
		set: func(st *jobState, v string) error {
			p, err := parsePair(v, 0, 7)
			st.job.CmdPrio.Level = p
			return err
		}},
	{name: "cmdprio_bssplit", field: "cmdprio_bssplit", doc: "CmdPrio.BSSplit: bs/percent or bs/percent/class/level, joined by :, read,write[,trim] (libaio, io_uring)",
		set: func(st *jobState, v string) error {
			s, err := parsePrioSplit(v)
			st.job.CmdPrio.BSSplit = s
			return err
		}},

	// Placement and Ordering, the verify phase, and options that change
	// nothing stortest measures.
	{name: "directory", field: "directory", doc: "Directory; one directory",
		set: func(st *jobState, v string) error {
			if strings.Contains(strings.ReplaceAll(v, `\:`, ""), ":") {
				return workload.Unsupported("directory=" + v + ": several directories")
			}
			st.job.Directory = strings.ReplaceAll(v, `\:`, ":")
			return nil
		}},
	{name: "filesize", field: "filesize", doc: "FileSize (bytes), or FileSize-FileSizeMax (A-B or A:B; with nrfiles above 1)",
		set: func(st *jobState, v string) error {
			lo, hi, isRange := strings.Cut(v, "-")
			if !isRange {
				lo, hi, isRange = strings.Cut(v, ":")
			}
			n, err := ParseSize(lo)
			st.job.FileSize, st.job.FileSizeMax = n, 0
			if err != nil || !isRange {
				return err
			}
			m, err := ParseSize(hi)
			if m != n {
				st.job.FileSizeMax = m
			}
			return err
		}},
	{name: "io_size", aliases: []string{"io_limit"}, field: "io_size", doc: "IOSize (bytes)",
		set: setSize(func(j *workload.Job) *int64 { return &j.IOSize })},
	{name: "stonewall", aliases: []string{"wait_for_previous"}, field: "stonewall", isBool: true, doc: "Stonewall",
		set: setBool(func(j *workload.Job) *bool { return &j.Stonewall })},
	{name: "new_group", field: "new_group", isBool: true, doc: "NewGroup",
		set: setBool(func(j *workload.Job) *bool { return &j.NewGroup })},
	{name: "wait_for", field: "wait_for", doc: "WaitFor (a job before this one)",
		set: setString(func(j *workload.Job) *string { return &j.WaitFor })},
	{name: "startdelay", field: "startdelay", doc: "StartDelay (default unit s; one value, not a range)",
		set: func(st *jobState, v string) error {
			if strings.Contains(v, "-") {
				return workload.Unsupported("startdelay=" + v + ": a random delay")
			}
			d, err := ParseTime(v, time.Second)
			st.job.StartDelay = d
			return err
		}},
	{name: "do_verify", field: "do_verify", isBool: true, doc: "NoVerifyPhase = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoVerifyPhase = !b
			return err
		}},
	{name: "verify_only", field: "verify_only", isBool: true, doc: "VerifyOnly: issue no workload I/O, read back what the writes would write (fio's or stortest's blocks); not time based",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.VerifyOnly = b
			return err
		}},
	{name: "verify_backlog", field: "verify_backlog", doc: "VerifyBacklog (blocks)",
		set: func(st *jobState, v string) error {
			n, err := ParseSize(v) // fio reads it as a number with size suffixes
			st.job.VerifyBacklog = n
			return err
		}},
	// Options that change nothing stortest measures.
	{name: "thread", field: "thread", isBool: true, doc: "No effect: every job runs on its own OS thread (any value, as fio takes it)",
		set: noEffect(false)},
	{name: "verifysort", field: "verifysort", isBool: true, doc: "No effect (deprecated in fio 3.33, which ignores it)",
		set: noEffect(false)},
	{name: "verifysort_nr", field: "verifysort_nr", doc: "No effect (deprecated in fio 3.33, which ignores it)",
		set: noEffect(false)},
	{name: "threads", field: "threads", doc: "No effect (fio's tiobench profile option; without profile= fio ignores it too)",
		set: noEffect(false)},
	{name: "random_generator", field: "random_generator", doc: "tausworthe, lfsr, tausworthe64: stortest's generators are its own; lfsr with one block size visits every block once per pass even with norandommap, as fio's",
		set: func(st *jobState, v string) error {
			switch v {
			case "tausworthe", "lfsr", "tausworthe64":
				st.lfsr = v == "lfsr"
				return nil
			}
			return fmt.Errorf("unknown random_generator %q (want tausworthe, lfsr or tausworthe64)", v)
		}},
	{name: "verify_dump", field: "verify_dump", isBool: true, doc: "No effect: mismatches are reported, not dumped to files",
		set: noEffect(true)},
	{name: "verify_state_save", field: "verify_state_save", isBool: true, doc: "No effect: no verify state file is written",
		set: noEffect(true)},
	{name: "verify_fatal", field: "verify_fatal", isBool: true, doc: "No effect: a pass with mismatches ends the job (continue_on_error=verify goes on)",
		set: noEffect(true)},
	{name: "experimental_verify", field: "experimental_verify", isBool: true, doc: "No effect: blocks are read back the same way",
		set: noEffect(true)},
	{name: "verify_interval", field: "verify_interval", doc: "No effect: one header per block (the I/O is the same)",
		set: func(_ *jobState, v string) error { _, err := ParseSize(v); return err }},
	{name: "create_serialize", field: "create_serialize", isBool: true, doc: "No effect: files are laid out one at a time",
		set: noEffect(true)},
	{name: "clocksource", field: "clocksource", doc: "gettimeofday, clock_gettime, cpu: no effect; stortest times every I/O with its own clock whatever the value (the calibrated TSC when invariant, as fio's cpu, else CLOCK_MONOTONIC; STORTEST_CLOCK=tsc|runtime chooses)",
		set: setClockSource},
	{name: "trim_verify_zero", field: "trim_verify_zero", isBool: true, doc: "No effect: it checks the blocks that trim_percentage trims in a verify job, and stortest refuses trim_percentage",
		set: noEffect(true)},

	// Flow between jobs (Ordering.Flow).
	{name: "flow", field: "flow", doc: "Flow.Weight: 0-1000; jobs with the same flow_id issue I/Os in the ratio of their weights (0: no flow control)",
		set: setInt(0, workload.MaxFlowWeight, func(j *workload.Job) *int { return &j.Flow.Weight })},
	{name: "flow_id", field: "flow_id", doc: "Flow.ID (default 0)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, workload.MaxFlowValue)
			st.job.Flow.ID = n
			return err
		}},
	{name: "flow_sleep", field: "flow_sleep", doc: "Flow.Sleep (whole microseconds, no unit)",
		set: func(st *jobState, v string) error {
			// fio reads flow_sleep as a plain integer: "10ms" is not a
			// time to it (it sleeps 10 s), so a unit is refused here.
			n, err := ParseCount(v, workload.MaxFlowValue)
			st.job.Flow.Sleep = time.Duration(n) * time.Microsecond
			return err
		}},
	{name: "flow_watermark", field: "flow_watermark", doc: "No effect: fio 3.33 ignores it (deprecated)",
		set: func(_ *jobState, v string) error { _, err := ParseCount(v, workload.MaxFlowValue); return err }},

	// Submission.
	{name: "io_submit_mode", field: "io_submit_mode", doc: "Offload: inline (false, the default) or offload (true)",
		set: func(st *jobState, v string) error {
			switch v {
			case "inline":
				st.job.Offload = false
			case "offload":
				st.job.Offload = true
			default:
				return fmt.Errorf("unknown io_submit_mode %q (want inline or offload)", v)
			}
			return nil
		}},
	{name: "rate_process", field: "rate_process", doc: "Poisson: linear (false, the default) or poisson (true)",
		set: func(st *jobState, v string) error {
			switch v {
			case "linear":
				st.job.Poisson = false
			case "poisson":
				st.job.Poisson = true
			default:
				return fmt.Errorf("unknown rate_process %q (want linear or poisson)", v)
			}
			return nil
		}},
	{name: "serialize_overlap", field: "serialize_overlap", isBool: true, doc: "SerializeOverlap (with iodepth > 1 on an asynchronous engine: io_submit_mode=offload only)",
		set: setBool(func(j *workload.Job) *bool { return &j.SerializeOverlap })},

	// Syncs, PageCache and the other file options.
	{name: "fdatasync", field: "fdatasync", doc: "FdatasyncEvery (writes)",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.FdatasyncEvery })},
	{name: "sync_file_range", field: "sync_file_range", doc: "SyncFileRange: wait_before,write,wait_after[:N]",
		set: func(st *jobState, v string) error {
			s, err := parseSyncFileRange(v)
			st.job.SyncFileRange = s
			return err
		}},
	{name: "end_fsync", field: "end_fsync", isBool: true, doc: "EndFsync",
		set: setBool(func(j *workload.Job) *bool { return &j.EndFsync })},
	{name: "fsync_on_close", field: "fsync_on_close", isBool: true, doc: "FsyncOnClose",
		set: setBool(func(j *workload.Job) *bool { return &j.FsyncOnClose })},
	{name: "create_fsync", field: "create_fsync", isBool: true, doc: "NoCreateFsync = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoCreateFsync = !b
			return err
		}},
	{name: "create_only", field: "create_only", isBool: true, doc: "CreateOnly",
		set: setBool(func(j *workload.Job) *bool { return &j.CreateOnly })},
	{name: "pre_read", field: "pre_read", isBool: true, doc: "PreRead",
		set: setBool(func(j *workload.Job) *bool { return &j.PreRead })},
	{name: "invalidate", field: "invalidate", isBool: true, doc: "NoInvalidate = !value (fio's default invalidates)",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoInvalidate = !b
			return err
		}},
	{name: "fadvise_hint", field: "fadvise_hint", doc: "FadviseHint: 1 (by pattern, the default), 0, sequential, random",
		set: func(st *jobState, v string) error {
			switch v {
			case "1", "true", "yes", "on":
				st.job.FadviseHint = ""
			case "0", "false", "no", "off":
				st.job.FadviseHint = "0"
			case "sequential", "random":
				st.job.FadviseHint = v
			default:
				return fmt.Errorf("unknown fadvise_hint %q (want 0, 1, sequential or random)", v)
			}
			return nil
		}},
	{name: "offset_increment", field: "offset_increment", doc: "OffsetIncrement (bytes; N% is not supported)",
		set: func(st *jobState, v string) error {
			if strings.HasSuffix(strings.TrimSpace(v), "%") {
				return workload.Unsupported("offset_increment=" + v + ": a percentage of the file")
			}
			n, err := ParseSize(v)
			st.job.OffsetIncrement = n
			return err
		}},
	{name: "offset_align", field: "offset_align", doc: "OffsetAlign (of offset=N% only, as fio)",
		set: setSize(func(j *workload.Job) *int64 { return &j.OffsetAlign })},
	{name: "allrandrepeat", field: "allrandrepeat", isBool: true, doc: "AllRandRepeat",
		set: setBool(func(j *workload.Job) *bool { return &j.AllRandRepeat })},
	{name: "write_hint", field: "write_hint", doc: "WriteHint: none, short, medium, long, extreme",
		set: func(st *jobState, v string) error {
			for i, name := range workload.WriteHints {
				if name != "" && v == name {
					st.job.WriteHint = i
					return nil
				}
			}
			return fmt.Errorf("unknown write_hint %q (want none, short, medium, long or extreme)", v)
		}},
	{name: "nonvectored", field: "nonvectored", doc: "1 (and -1, probe): no effect, io_uring reads and writes are non-vectored, what fio's probe picks; 0 (readv/writev) is not supported",
		set: func(_ *jobState, v string) error {
			switch v {
			case "1", "-1":
				return nil
			case "0":
				return workload.Unsupported("nonvectored=0 (vectored io_uring reads and writes)")
			}
			return fmt.Errorf("%q is not -1, 0 or 1", v)
		}},
	{name: "file_append", field: "file_append", isBool: true, doc: "FileAppend (write and randwrite jobs with size)",
		set: setBool(func(j *workload.Job) *bool { return &j.FileAppend })},
	{name: "overwrite", field: "overwrite", isBool: true, doc: "NoOverwrite = !value (without it, files are laid out by writing them, as fio's overwrite=1)",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoOverwrite = !b
			return err
		}},
	{name: "sync", field: "sync", doc: "SyncIO: none (0), sync (1), dsync",
		set: func(st *jobState, v string) error {
			switch v {
			case "none", "0":
				st.job.SyncIO = ""
			case "sync", "1":
				st.job.SyncIO = "sync"
			case "dsync":
				st.job.SyncIO = "dsync"
			default:
				return fmt.Errorf("%q is not none, 0, sync, 1 or dsync", v)
			}
			return nil
		}},
	{name: "allow_file_create", field: "allow_file_create", isBool: true, doc: "NoFileCreate = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoFileCreate = !b
			return err
		}},
	{name: "percentage_random", field: "percentage_random", doc: "PercentSequential = 100 - value: r[,w[,t]] percent (default 100)",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, func(s string) (int64, error) { return ParseCount(s, 100) })
			if err != nil {
				return err
			}
			parts := strings.Split(v, ",")
			for i := range t {
				t[i] = 100 - t[i]
				if i < len(parts) && strings.TrimSpace(parts[i]) == "" {
					t[i] = 0 // not given: fio's default, all random
				}
			}
			st.job.PercentSequential = t
			return nil
		}},
	{name: "unique_filename", field: "unique_filename", isBool: true, doc: "No effect: it names files per client host in fio's client/server mode",
		set: noEffect(true)},

	// IOLogs: I/O logs written and replayed.
	{name: "write_iolog", field: "write_iolog", doc: "WriteIOLog (fio's version 3 iolog, as fio 3.33 writes it)",
		set: setString(func(j *workload.Job) *string { return &j.WriteIOLog })},
	{name: "read_iolog", field: "read_iolog", doc: "ReadIOLog (a version 2 or 3 iolog of one file; not blktrace, not several logs)",
		set: func(st *jobState, v string) error {
			if v == "-" {
				return workload.Unsupported("read_iolog=-: a log on standard input")
			}
			if strings.Contains(strings.ReplaceAll(v, `\:`, ""), ":") {
				return workload.Unsupported("read_iolog=" + v + ": several logs")
			}
			st.job.ReadIOLog = strings.ReplaceAll(v, `\:`, ":")
			return nil
		}},
	{name: "replay_no_stall", field: "replay_no_stall", isBool: true, doc: "ReplayNoStall",
		set: setBool(func(j *workload.Job) *bool { return &j.ReplayNoStall })},
	{name: "replay_redirect", field: "replay_redirect", doc: "ReplayRedirect",
		set: setString(func(j *workload.Job) *string { return &j.ReplayRedirect })},
	{name: "replay_scale", field: "replay_scale", doc: "ReplayScale",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 1<<62)
			st.job.ReplayScale = n
			return err
		}},
	{name: "replay_align", field: "replay_align", doc: "ReplayAlign (bytes, a power of 2)",
		set: setSize(func(j *workload.Job) *int64 { return &j.ReplayAlign })},
	{name: "replay_time_scale", field: "replay_time_scale", doc: "ReplayTimeScale (percent)",
		set: setInt(1, 1<<30, func(j *workload.Job) *int { return &j.ReplayTimeScale })},
	{name: "replay_skip", field: "replay_skip", doc: "ReplaySkip (read, write, trim, sync, comma separated)",
		set: func(st *jobState, v string) error {
			var bits uint16
		words:
			for w := range strings.SplitSeq(v, ",") {
				w = strings.TrimSpace(w)
				for _, s := range workload.ReplaySkipNames {
					if s.Name == w {
						bits |= s.Bits
						continue words
					}
				}
				return fmt.Errorf("unknown replay_skip %q (want read, write, trim or sync)", w)
			}
			st.job.ReplaySkip = bits
			return nil
		}},

	// LatencyLimits: the latency target and max_latency.
	{name: "latency_target", field: "latency_target", doc: "LatencyTarget (default unit us)",
		set: setMicros(func(j *workload.Job) *time.Duration { return &j.LatencyTarget })},
	{name: "latency_window", field: "latency_window", doc: "LatencyWindow (default unit us)",
		set: setMicros(func(j *workload.Job) *time.Duration { return &j.LatencyWindow })},
	{name: "latency_percentile", field: "latency_percentile", doc: "LatencyPercentile: above 0, at most 100 (the default)",
		set: func(st *jobState, v string) error {
			p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
			switch {
			case err != nil:
				return fmt.Errorf("%q is not a number", v)
			case p < 0 || p > 100:
				return fmt.Errorf("%v is out of range 0-100", p)
			case p == 0:
				return fmt.Errorf("0 is not supported by stortest (0 stands for the default, 100)")
			}
			st.job.LatencyPercentile = p
			return nil
		}},
	{name: "latency_run", field: "latency_run", isBool: true, doc: "LatencyRun",
		set: setBool(func(j *workload.Job) *bool { return &j.LatencyRun })},
	{name: "max_latency", field: "max_latency", doc: "MaxLatency: read[,write[,trim]] (default unit us)",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, func(s string) (int64, error) {
				d, err := ParseTime(s, time.Microsecond)
				return int64(d), err
			})
			for d := range workload.NumDirs {
				st.job.MaxLatency[d] = time.Duration(t[d])
			}
			return err
		}},

	// Buffers: what writes carry.
	{name: "buffer_pattern", field: "buffer_pattern", doc: "BufferPattern: 0x hex, \"text\", decimal numbers, concatenated",
		set: func(st *jobState, v string) error {
			if _, err := fio.ParseBufferPattern(v); err != nil {
				return err
			}
			st.job.BufferPattern = v
			return nil
		}},
	{name: "zero_buffers", field: "zero_buffers", isBool: true, doc: "ZeroBuffers",
		set: setBool(func(j *workload.Job) *bool { return &j.ZeroBuffers })},
	{name: "refill_buffers", field: "refill_buffers", isBool: true, doc: "RefillBuffers",
		set: setBool(func(j *workload.Job) *bool { return &j.RefillBuffers })},
	{name: "scramble_buffers", field: "scramble_buffers", isBool: true, doc: "NoScramble = !value (default 1)",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoScramble = !b
			return err
		}},
	{name: "buffer_compress_percentage", field: "buffer_compress_percentage", doc: "BufferCompress (0-100; not with verify)",
		set: setInt(0, 100, func(j *workload.Job) *int { return &j.BufferCompress })},
	{name: "buffer_compress_chunk", field: "buffer_compress_chunk", doc: "CompressChunk (bytes, default 512; 0: the block)",
		set: func(st *jobState, v string) error {
			n, err := ParseSize(v)
			if err != nil {
				return err
			}
			if n == 0 {
				n = -1
			}
			st.job.CompressChunk = n
			return nil
		}},
	{name: "dedupe_percentage", field: "dedupe_percentage", doc: "DedupePercentage (0-100; not with verify)",
		set: setInt(0, 100, func(j *workload.Job) *int { return &j.DedupePercentage })},
	{name: "dedupe_mode", field: "dedupe_mode", doc: "DedupeWorkingSet: repeat (false, the default) or working_set (true)",
		set: func(st *jobState, v string) error {
			switch v {
			case "repeat":
				st.job.DedupeWorkingSet = false
			case "working_set":
				st.job.DedupeWorkingSet = true
			default:
				return fmt.Errorf("unknown dedupe_mode %q (want repeat or working_set)", v)
			}
			return nil
		}},
	{name: "dedupe_working_set_percentage", field: "dedupe_working_set_percentage", doc: "DedupeWorkingSetPercent (1-100, default 5)",
		set: setInt(1, 100, func(j *workload.Job) *int { return &j.DedupeWorkingSetPercent })},
	{name: "dedupe_global", field: "dedupe_global", isBool: true, doc: "DedupeGlobal",
		set: setBool(func(j *workload.Job) *bool { return &j.DedupeGlobal })},

	// OffsetPattern, Measurement, RateFloor, Priority, Think, Ending,
	// Zones, fill_device.
	{name: "rw_sequencer", field: "rw_sequencer", doc: "RWSequencer: sequential or identical (with a random rw's :N)",
		set: func(st *jobState, v string) error {
			switch v {
			case "sequential", "identical":
				st.job.RWSequencer = v
				return nil
			}
			return fmt.Errorf("unknown rw_sequencer %q (want sequential or identical)", v)
		}},
	{name: "blockalign", aliases: []string{"ba"}, field: "blockalign", doc: "BlockAlign (bytes; one value for all directions)",
		set: func(st *jobState, v string) error {
			v, err := oneForAllDirections("blockalign", v)
			if err != nil {
				return err
			}
			n, err := ParseSize(v)
			if err == nil && n == 0 {
				// 0 is the model's "the block size"; fio's least value is 1.
				return fmt.Errorf("0 is out of range (at least 1), which fio refuses (\"min value out of range: 0 (1 min)\")")
			}
			st.job.BlockAlign = n
			return err
		}},
	{name: "rate_min", aliases: []string{"ratemin"}, field: "rate_min", doc: "RateMin (bytes/s): r[,w[,t]]",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, ParseSize)
			st.job.RateMin = t
			return err
		}},
	{name: "rate_iops_min", field: "rate_iops_min", doc: "RateIOPSMin: r[,w[,t]]",
		set: func(st *jobState, v string) error {
			t, err := parseTriple(v, ParseSize)
			st.job.RateIOPSMin = t
			return err
		}},
	{name: "rate_cycle", aliases: []string{"ratecycle"}, field: "rate_cycle", doc: "RateCycle (ms)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 1<<31-1)
			st.job.RateCycle = time.Duration(n) * time.Millisecond
			return err
		}},
	{name: "prioclass", field: "prioclass", doc: "PrioClass: 1 real time, 2 best effort, 3 idle",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 3)
			if err == nil && n == 0 {
				err = valueErr("class 0 is the thread's own: leave prioclass out")
			}
			st.job.PrioClass = int(n)
			return err
		}},
	{name: "prio", field: "prio", doc: "PrioLevel: 0-7 (best effort without prioclass)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 7)
			st.job.PrioLevel = int(n)
			if st.job.PrioClass == 0 {
				st.job.PrioClass = 2
			}
			return err
		}},
	{name: "fill_device", aliases: []string{"fill_fs"}, field: "fill_device", isBool: true, doc: "FillDevice: no size: until the device or file system is full",
		set: setBool(func(j *workload.Job) *bool { return &j.FillDevice })},
	{name: "thinktime", field: "thinktime", doc: "ThinkTime (default unit us)",
		set: setMicros(func(j *workload.Job) *time.Duration { return &j.ThinkTime })},
	{name: "thinktime_spin", field: "thinktime_spin", doc: "ThinkTimeSpin (default unit us)",
		set: setMicros(func(j *workload.Job) *time.Duration { return &j.ThinkTimeSpin })},
	{name: "thinktime_blocks", field: "thinktime_blocks", doc: "ThinkTimeBlocks (default 1)",
		set: setInt(1, 1<<31-1, func(j *workload.Job) *int { return &j.ThinkTimeBlocks })},
	{name: "number_ios", field: "number_ios", doc: "NumberIOs",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 1<<62)
			st.job.NumberIOs = n
			return err
		}},
	{name: "exitall", field: "exitall", isBool: true, doc: "ExitAll",
		set: setBool(func(j *workload.Job) *bool { return &j.ExitAll })},
	{name: "exit_what", field: "exit_what", doc: "ExitWhat: group, stonewall or all",
		set: func(st *jobState, v string) error {
			switch v {
			case "group", "stonewall", "all":
				st.job.ExitWhat = v
				return nil
			}
			return fmt.Errorf("unknown exit_what %q (want group, stonewall or all)", v)
		}},
	{name: "zonemode", field: "zonemode", doc: "ZoneMode: none or strided",
		set: func(st *jobState, v string) error {
			switch v {
			case "none", "strided":
				st.job.ZoneMode = v
				return nil
			case "zbd":
				return workload.Unsupported("zonemode=zbd (zoned block devices)")
			}
			return fmt.Errorf("unknown zonemode %q (want none, strided or zbd)", v)
		}},
	{name: "zonerange", field: "zonerange", doc: "ZoneRange (bytes)",
		set: setSize(func(j *workload.Job) *int64 { return &j.ZoneRange })},
	{name: "zonesize", field: "zonesize", doc: "ZoneSize (bytes)",
		set: setSize(func(j *workload.Job) *int64 { return &j.ZoneSize })},
	{name: "zoneskip", field: "zoneskip", doc: "ZoneSkip (bytes)",
		set: setSize(func(j *workload.Job) *int64 { return &j.ZoneSkip })},
	{name: "gtod_reduce", field: "gtod_reduce", isBool: true, doc: "DisableLat, DisableClat, DisableSlat and DisableBW",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			j := &st.job
			j.DisableLat, j.DisableClat, j.DisableSlat, j.DisableBW = b, b, b, b
			return err
		}},
	{name: "disable_lat", field: "disable_lat", isBool: true, doc: "DisableLat",
		set: setBool(func(j *workload.Job) *bool { return &j.DisableLat })},
	{name: "disable_clat", field: "disable_clat", isBool: true, doc: "DisableClat",
		set: setBool(func(j *workload.Job) *bool { return &j.DisableClat })},
	{name: "disable_slat", field: "disable_slat", isBool: true, doc: "DisableSlat",
		set: setBool(func(j *workload.Job) *bool { return &j.DisableSlat })},
	{name: "bwavgtime", field: "bwavgtime", doc: "BWAvgTime (ms)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 1<<31-1)
			st.job.BWAvgTime = time.Duration(n) * time.Millisecond
			return err
		}},
	{name: "iopsavgtime", field: "iopsavgtime", doc: "IOPSAvgTime (ms)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 1<<31-1)
			st.job.IOPSAvgTime = time.Duration(n) * time.Millisecond
			return err
		}},
	{name: "disable_bw_measurement", aliases: []string{"disable_bw"}, field: "disable_bw_measurement", isBool: true, doc: "DisableBW",
		set: setBool(func(j *workload.Job) *bool { return &j.DisableBW })},

	// NoDataEngines: cpuio, exec and the file engines.
	{name: "nrfiles", aliases: []string{"nr_files"}, field: "nrfiles", doc: "NrFiles: files per clone (ioengine sync, psync, pvsync2, libaio, io_uring, posixaio, null and the file engines)",
		set: setInt(1, 1<<24, func(j *workload.Job) *int { return &j.NrFiles })},
	{name: "openfiles", field: "openfiles", doc: "OpenFiles: the most files fio holds open, which orders the files served",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.OpenFiles })},
	{name: "file_service_type", field: "file_service_type", doc: "FileService: roundrobin[:N], sequential, random[:N], zipf[:theta], pareto[:h], normal[:dev] (gauss)",
		set: func(st *jobState, v string) error {
			fs, err := parseFileService(v)
			st.job.FileService = fs
			return err
		}},
	{name: "create_on_open", field: "create_on_open", isBool: true, doc: "CreateOnOpen: files are made when the job opens them, none laid out",
		set: setBool(func(j *workload.Job) *bool { return &j.CreateOnOpen })},
	{name: "unlink", field: "unlink", isBool: true, doc: "Unlink: remove the job's regular files after it",
		set: setBool(func(j *workload.Job) *bool { return &j.Unlink })},
	{name: "unlink_each_loop", field: "unlink_each_loop", isBool: true, doc: "UnlinkEachLoop: remove the job's regular files before each loop after the first (jobs that only write)",
		set: setBool(func(j *workload.Job) *bool { return &j.UnlinkEachLoop })},
	{name: "fallocate", field: "fallocate", doc: "none, native, posix, keep, truncate, 0, 1: no effect (files are laid out by writing them; filecreate makes them empty, as fio)",
		set: func(_ *jobState, v string) error {
			switch v {
			case "none", "native", "posix", "keep", "truncate", "0", "1":
				return nil
			}
			return fmt.Errorf("unknown fallocate %q (want none, native, posix, keep, truncate, 0 or 1)", v)
		}},
	{name: "cpuload", field: "cpuload", doc: "CPULoad (percent; cpuio)",
		set: setInt(1, 100, func(j *workload.Job) *int { return &j.CPULoad })},
	{name: "cpuchunks", field: "cpuchunks", doc: "CPUChunks (microseconds; cpuio)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, int64(time.Hour/time.Microsecond))
			st.job.CPUChunks = time.Duration(n) * time.Microsecond
			return err
		}},
	{name: "cpumode", field: "cpumode", doc: "CPUMode: noop, qsort (cpuio)",
		set: setString(func(j *workload.Job) *string { return &j.CPUMode })},
	{name: "stat_type", field: "stat_type", doc: "StatType: stat, lstat, statx (filestat)",
		set: setString(func(j *workload.Job) *string { return &j.StatType })},
	{name: "program", field: "program", doc: "ExecProgram (exec)",
		set: setString(func(j *workload.Job) *string { return &j.ExecProgram })},
	{name: "arguments", field: "arguments", doc: "ExecArguments: split at blanks, %r the runtime in s, %n the job's name (exec)",
		set: setString(func(j *workload.Job) *string { return &j.ExecArguments })},
	{name: "grace_time", field: "grace_time", doc: "ExecGrace (default unit s; exec)",
		set: func(st *jobState, v string) error {
			d, err := ParseTime(v, time.Second)
			st.job.ExecGrace = &d
			return err
		}},
	{name: "std_redirect", field: "std_redirect", isBool: true, doc: "ExecNoRedirect = !value (exec)",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.ExecNoRedirect = !b
			return err
		}},

	// Net: the net engine's socket.
	{name: "hostname", field: "filename", doc: "Filename: the peer, multicast group or unix socket (net)",
		set: setString(func(j *workload.Job) *string { return &j.Filename })},
	{name: "port", field: "port", doc: "Port: clone i uses port+i (net)",
		set: setInt(1, 65535, func(j *workload.Job) *int { return &j.Port })},
	{name: "protocol", aliases: []string{"proto"}, field: "protocol", doc: "Protocol: " + strings.Join(workload.NetProtocols, ", ") + " (net)",
		set: func(st *jobState, v string) error {
			if !slices.Contains(workload.NetProtocols, v) {
				return fmt.Errorf("unknown protocol %q (want %s)", v, workload.OrList(workload.NetProtocols))
			}
			st.job.Protocol = v
			return nil
		}},
	{name: "listen", field: "listen", isBool: true, doc: "Listen: wait for the peer (net, TCP)",
		set: setBool(func(j *workload.Job) *bool { return &j.Listen })},
	{name: "pingpong", field: "pingpong", isBool: true, doc: "PingPong: each block comes back (net)",
		set: setBool(func(j *workload.Job) *bool { return &j.PingPong })},
	{name: "nodelay", field: "nodelay", isBool: true, doc: "NoDelay: TCP_NODELAY (net)",
		set: setBool(func(j *workload.Job) *bool { return &j.NoDelay })},
	{name: "ttl", field: "ttl", doc: "TTL of UDP multicast (net; default 1)",
		set: func(st *jobState, v string) error {
			n, err := ParseCount(v, 255)
			ttl := int(n)
			st.job.TTL = &ttl
			return err
		}},
	{name: "window_size", field: "window_size", doc: "WindowSize: the socket's buffers, bytes (net)",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.WindowSize })},
	{name: "mss", field: "mss", doc: "MSS: TCP_MAXSEG (net)",
		set: setInt(0, 1<<31-1, func(j *workload.Job) *int { return &j.MSS })},
	{name: "interface", field: "interface", doc: "Interface: IPv4 address for UDP multicast (net)",
		set: setString(func(j *workload.Job) *string { return &j.Interface })},
}
