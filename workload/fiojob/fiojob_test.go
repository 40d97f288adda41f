package fiojob

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"stortest.dev/fio"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"

	"stortest.dev/internal/testenv"
)

func norm(js ...workload.Job) []workload.Job {
	for i := range js {
		js[i] = js[i].Normalized()
	}
	return js
}

func TestParseFio(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []workload.Job
	}{
		{
			name: "fio HOWTO example",
			in:   "; -- start job file --\n[global]\nrw=randread\nsize=128m\n\n[job1]\n\n[job2]\n\n; -- end job file --\n",
			want: norm(workload.Job{Name: "job1", RW: workload.RandRead, Size: 128 << 20}, workload.Job{Name: "job2", RW: workload.RandRead, Size: 128 << 20}),
		},
		{
			name: "later global affects later jobs only",
			in:   "[global]\nbs=8k\n[a]\n[global]\nrw=write\n[b]\nbs=16k\n[c]\n",
			want: norm(workload.Job{Name: "a", BlockSize: 8192}, workload.Job{Name: "b", RW: workload.Write, BlockSize: 16384},
				workload.Job{Name: "c", RW: workload.Write, BlockSize: 8192}),
		},
		{
			name: "global prefix, as fio matches it",
			in:   "[global-settings]\niodepth=4\n[a]\n",
			want: norm(workload.Job{Name: "a", IODepth: 4}),
		},
		{
			name: "comments, blanks, white space, CRLF and BOM",
			in: "\ufeff# header\r\n  ; indented comment\r\n[ a b ] ; trailing comment\r\n\tbs = 64k # why\r\n" +
				"size=1m;why\r\n\r\n",
			want: norm(workload.Job{Name: " a b ", BlockSize: 64 << 10, Size: 1 << 20}),
		},
		{
			name: "bare booleans",
			in:   "[a]\nioengine=io_uring\ndirect\ntime_based\nruntime=10\nnorandommap\nhipri\nfixedbufs\nregisterfiles\nsqthread_poll\nnowait\nlat_percentiles\nslat_percentiles\n",
			want: norm(workload.Job{Name: "a", Engine: "io_uring", Direct: true, TimeBased: true, Runtime: 10 * time.Second,
				NoRandomMap: true, Hipri: true, FixedBufs: true, RegisterFiles: true, SQThreadPoll: true, NoWait: true,
				LatPercentiles: true, SlatPercentiles: true}),
		},
		{
			name: "fixedbufs: 0 is fio's default path, unset is io_uring's choice, the last one given wins",
			in:   "[a]\nioengine=io_uring\nfixedbufs=0\n[b]\nioengine=io_uring\n[c]\nioengine=io_uring\nfixedbufs=0\nfixedbufs=1\n",
			want: norm(workload.Job{Name: "a", Engine: "io_uring", NoFixedBufs: true}, workload.Job{Name: "b", Engine: "io_uring"},
				workload.Job{Name: "c", Engine: "io_uring", FixedBufs: true}),
		},
		{
			name: "aliases and conversions",
			in: "[a]\nreadwrite=randrw\nrwmixwrite=30\nblocksize=8k\niodepth=16\niodepth_batch=0\nfileoffset=4k\ntimeout=2m\n" +
				"buffered=0\nss=bw:5%\nsteadystate_duration=1m\nsteadystate_ramp_time=500ms\nkb_base=1024\nclat_percentiles=1\n",
			want: norm(workload.Job{Name: "a", RW: workload.RandRW, RWMixRead: 70, BlockSize: 8192, IODepth: 16, IODepthBatch: 16,
				Offset: 4096, Runtime: 2 * time.Minute, Direct: true, SS: "bw:5%", SSDur: time.Minute,
				SSRamp: 500 * time.Millisecond}),
		},
		{
			name: "last of bs, bsrange, bssplit wins",
			in:   "[global]\nbssplit=4k/50:8k/\n[a]\n[b]\nbs=16k\n[c]\nbsrange=64k:4k\n",
			want: norm(workload.Job{Name: "a", BlockSizeSplit: []workload.BlockSizeSplit{{Size: 4096, Percent: 50}, {Size: 8192, Percent: 50}}},
				workload.Job{Name: "b", BlockSize: 16384}, workload.Job{Name: "c", BlockSizeRange: workload.BlockSizeRange{Min: 4096, Max: 65536}}),
		},
		{
			name: "bssplit blanks share the rest",
			in:   "[a]\nbssplit=4k/10:8k:16k/:32k\n",
			want: norm(workload.Job{Name: "a", BlockSizeSplit: []workload.BlockSizeSplit{{Size: 4096, Percent: 10}, {Size: 8192, Percent: 30}, {Size: 16384, Percent: 30}, {Size: 32768, Percent: 30}}}),
		},
		{
			name: "per-direction rates",
			in:   "[a]\nrate_iops=100\n[b]\nrate=1m,\n[c]\nrate=,2m\n[d]\nrate=1m,2m,3m\n[e]\nrate_iops=5,7\n",
			want: norm(workload.Job{Name: "a", RateIOPS: [3]int{100, 100, 100}}, workload.Job{Name: "b", Rate: [3]int64{1 << 20, 0, 0}},
				workload.Job{Name: "c", Rate: [3]int64{0, 2 << 20, 2 << 20}}, workload.Job{Name: "d", Rate: [3]int64{1 << 20, 2 << 20, 3 << 20}},
				workload.Job{Name: "e", RateIOPS: [3]int{5, 7, 7}}),
		},
		{
			name: "randomness and verify",
			in: "[a]\nrw=randwrite\nrandrepeat=0\nrandseed=0x1234\nrandom_distribution=normal:5:0.5\nverify=crc32c-intel\n" +
				"verify_pattern=0xff\"ab\"\npercentile_list=99.9:50:0:10\nfsync=32\n",
			want: norm(workload.Job{Name: "a", RW: workload.RandWrite, RandRepeat: workload.Bool(false), RandSeed: 0x1234,
				RandomDistribution: workload.Distribution{Kind: workload.DistNormal, Param: 5}, Verify: workload.VerifyCRC32C,
				VerifyPattern: `0xff"ab"`, PercentileList: []float64{50, 99.9}, FsyncEvery: 32}),
		},
		{
			name: "name option and escaped colon",
			in:   "[sect]\nname=renamed\nfilename=/tmp/a\\:b\nloops=2\nnumjobs=4\nwrite_hist_log=h\nlog_hist_msec=500\n",
			want: norm(workload.Job{Name: "renamed", Section: "sect", Filename: "/tmp/a:b", Loops: 2, NumJobs: 4, WriteHistLog: "h", LogHistMsec: 500}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFile(strings.NewReader(tc.in), "job.fio")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFioEnv(t *testing.T) {
	t.Setenv("STORTEST_T_SIZE", "64m")
	t.Setenv("STORTEST_T_JOBS", "4")
	t.Setenv("STORTEST_T_EMPTY", "")
	in := "[random-writers]\nrw=randwrite\nsize=${STORTEST_T_SIZE}\nnumjobs=${STORTEST_T_JOBS}\n" +
		"description=a${STORTEST_T_UNSET}b${STORTEST_T_EMPTY}c\nfilename=/tmp/${STORTEST_T_JOBS}${\n"
	got, err := parseFile(strings.NewReader(in), "env.fio")
	if err == nil {
		t.Fatalf("unterminated ${ kept a '$' and must fail; got %+v", got)
	}
	if !strings.Contains(err.Error(), "env.fio:6:") {
		t.Errorf("error %q: want env.fio:6", err)
	}
	in = strings.Replace(in, "${\n", "\n", 1)
	got, err = parseFile(strings.NewReader(in), "env.fio")
	if err != nil {
		t.Fatal(err)
	}
	want := norm(workload.Job{Name: "random-writers", RW: workload.RandWrite, Size: 64 << 20, NumJobs: 4, Description: "abc", Filename: "/tmp/4"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseFioErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		is   error
		msg  string // the whole message must contain it
	}{
		{"unknown option", "[a]\nblcksize=4k\n", ErrUnknownOption, `job.fio:2: job "a": unknown option "blcksize" (did you mean blocksize?)`},
		{"unknown far", "[a]\nzzzzzz=1\n", ErrUnknownOption, `job.fio:2: job "a": unknown option "zzzzzz"`},
		{"unsupported option", "[global]\nlockmem=1m\n[a]\n", workload.ErrUnsupported, "job.fio:2: fio option lockmem is not supported by stortest"},
		{"unsupported value", "[a]\nrw=randread\nrandom_distribution=zoned:50/10:50/90,50/10:50/90\n", workload.ErrUnsupported, `job.fio:3: job "a": random_distribution: random_distribution=zoned:50/10:50/90,50/10:50/90 (zones per direction) is not supported by stortest`},
		{"include missing", "[a]\ninclude nope-other.fio\n", ErrSyntax, `job.fio:2: job "a": include nope-other.fio: open nope-other.fio: no such file or directory`},
		{"include outside", "include nope-other.fio\n[a]\n", ErrSyntax, `job.fio:1: option "include nope-other.fio" outside a [job] or [global] section`},
		{"keyword", "[a]\nsize=8*$mb_memory+1k\n", workload.ErrInvalid, "size: \"8*"},
		{"arithmetic", "[a]\nsize=(1+2)\n", workload.ErrUnsupported, "arithmetic expression"},
		{"dollar", "[a]\nsize=$SIZE\n", workload.ErrInvalid, "fio expands ${NAME} only"},
		{"outside", "bs=4k\n[a]\n", ErrSyntax, "job.fio:1: option \"bs=4k\" outside a [job] or [global] section"},
		{"bad header", "[a\n", ErrSyntax, "job.fio:1: bad section header"},
		{"empty header", "[]\n", ErrSyntax, "bad section header"},
		{"no jobs", "[global]\nbs=4k\n", ErrSyntax, "no job sections"},
		{"empty", "", ErrSyntax, "job.fio:0: no job sections"},
		{"bad size", "[a]\nbs=4q\n", workload.ErrInvalid, `job.fio:2: job "a": bs: invalid size "4q"`},
		{"kib", "[a]\nsize=4KiB\n", workload.ErrInvalid, "size: 4000 is smaller than the block size 4k"}, // fio reads KiB as 1000
		{"needs value", "[a]\nbs\n", workload.ErrInvalid, "bs: needs a value"},
		{"bad bool", "[a]\ndirect=maybe\n", workload.ErrInvalid, "direct: invalid boolean"},
		{"bad time", "[a]\nruntime=10sec\n", workload.ErrInvalid, "runtime: invalid time"},
		{"bad steadystate", "[a]\nsize=1m\nss=iopz:5%\nss_dur=5\n", workload.ErrInvalid, `job.fio:3: job "a": steadystate: steady: bad criterion "iopz:5%": unknown metric "iopz"`},
		{"per-direction bs", "[a]\nbs=4k,8k,16k,32k\nrw=randrw\n", workload.ErrInvalid, `job.fio:2: job "a": bs: "4k,8k,16k,32k": at most three values (read,write,trim)`},
		{"per-direction bsrange", "[a]\nbsrange=512-4k,1k-x\n", workload.ErrInvalid, `bsrange: invalid size "x"`},
		{"several files", "[a]\nfilename=/a:/b\n", workload.ErrUnsupported, "several files"},
		{"percent size", "[a]\nsize=120%\n", workload.ErrInvalid, `size: "120%" is not a percentage from 1% to 100%`},
		{"percent offset", "[a]\noffset=120%\n", workload.ErrInvalid, `offset: "120%" is not a percentage from 0% to 100%`},
		{"kb_base 1000", "[a]\nkb_base=1000\n", workload.ErrUnsupported, "kb_base=1000"},
		{"ioscheduler", "[a]\nioscheduler=none\n", workload.ErrUnsupported, "fio option ioscheduler is not supported by stortest"},
		{"zoned per direction", "[a]\nrandom_distribution=zoned:50/50:50/50,50/10:50/90\n", workload.ErrUnsupported, "zones per direction"},
		{"validate at its line", "[a]\nrw=randread\niodepth=4\niodepth_batch=8\n", workload.ErrInvalid,
			`job.fio:4: job "a": iodepth_batch_submit: 8 is outside [1, iodepth=4]`},
		{"validate at global line", "[global]\nioengine=libaio\nhipri\n[a]\n", workload.ErrInvalid,
			`job.fio:3: job "a": hipri: ioengine=libaio does not take it`},
		{"validate at section", "[a]\ntime_based\n", workload.ErrInvalid, `job.fio:2: job "a": time_based: needs a runtime`},
		{"validate name", "[a;b]\n", ErrSyntax, "bad section header"},
		{"rwmixread 0", "[a]\nrw=randrw\nrwmixread=0\n", workload.ErrInvalid, "job.fio:3: job \"a\": rwmixread: 0% reads"},
		{"rwmixwrite 100", "[a]\nrwmixwrite=100\nrw=rw\n", workload.ErrInvalid, "job.fio:2: job \"a\": rwmixread: 0% reads"},
		{"rate and iops", "[a]\nrate=1m\nrate_iops=100\n", workload.ErrInvalid, "job.fio:3: job \"a\": rate_iops: rate and rate_iops are mutually exclusive"},
		{"loops 0", "[a]\nloops=0\n", workload.ErrInvalid, "loops: 0 is less than 1"},
		{"bssplit over", "[a]\nbssplit=4k/60:8k/50\n", workload.ErrInvalid, "more than 100"},
		{"second job bad", "[a]\n[b]\nbs=0\n", workload.ErrInvalid, `job.fio:3: job "b": bs: a block size of 0`},
		{"long line", "[a]\ndescription=" + strings.Repeat("x", maxLine) + "\n", ErrSyntax, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := parseFile(strings.NewReader(tc.in), "job.fio")
			wantError(t, jobs, err, tc.is, tc.msg)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "job.fio" || pe.Arg != -1 {
				t.Errorf("error %#v: want a *ParseError for job.fio", err)
			}
		})
	}
}

func TestParseFioArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []workload.Job
	}{
		{
			name: "fio HOWTO command line",
			args: strings.Fields("--name=random-writers --ioengine=libaio --iodepth=4 --rw=randwrite --bs=32k --direct=0 --size=64m --numjobs=4"),
			want: norm(workload.Job{Name: "random-writers", Engine: "libaio", IODepth: 4, RW: workload.RandWrite, BlockSize: 32 << 10, Size: 64 << 20, NumJobs: 4}),
		},
		{
			name: "--name=global, as fio --showcmd prints it",
			args: strings.Fields("--name=global --rw=randread --size=128m --name=job1 --name=job2"),
			want: norm(workload.Job{Name: "job1", RW: workload.RandRead, Size: 128 << 20}, workload.Job{Name: "job2", RW: workload.RandRead, Size: 128 << 20}),
		},
		{
			name: "options before the first name are global; later globals affect later jobs",
			args: strings.Fields("--rw=randwrite --name=a --size=64k --name=global --bs=8k --name=b --size=64k"),
			want: norm(workload.Job{Name: "a", RW: workload.RandWrite, Size: 64 << 10}, workload.Job{Name: "b", RW: workload.RandWrite, Size: 64 << 10, BlockSize: 8192}),
		},
		{
			name: "separate values, bare booleans, one dash",
			args: []string{"-name", "x", "--bs", "64k", "--direct", "--time_based", "-runtime=30", "--size", "1g"},
			want: norm(workload.Job{Name: "x", BlockSize: 64 << 10, Direct: true, TimeBased: true, Runtime: 30 * time.Second, Size: 1 << 30}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFioArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		is   error
		msg  string
	}{
		{"job file", []string{"job.fio"}, ErrSyntax, `args[0]: "job.fio" is not an option`},
		{"unknown", []string{"--name=a", "--iodeth=4"}, ErrUnknownOption, `args[1]: job "a": unknown option "iodeth" (did you mean iodepth?)`},
		{"unsupported", []string{"--name=a", "--bs=4k", "--ioscheduler=none"}, workload.ErrUnsupported, "args[2]: job \"a\": fio option ioscheduler is not supported by stortest"},
		{"cli only", []string{"--output-format=json", "--name=a"}, workload.ErrUnsupported, "args[0]: fio command-line option --output-format is not a job option"},
		{"cli only, in fio's list", []string{"--name=a", "--memcpytest"}, workload.ErrUnsupported, `args[1]: job "a": fio command-line option --memcpytest is not a job option`},
		{"bad value", []string{"--name=a", "--size=1x"}, workload.ErrInvalid, `args[1]: job "a": size: invalid size "1x"`},
		{"name without value", []string{"--name"}, workload.ErrInvalid, "args[0]: name: needs a value"},
		{"missing value", []string{"--name=a", "--bs"}, workload.ErrInvalid, "args[1]: job \"a\": bs: needs a value"},
		{"no job", []string{"--bs=4k"}, ErrSyntax, "no job"},
		{"nothing", nil, ErrSyntax, "no job"},
		{"dash", []string{"--"}, ErrSyntax, "is not an option"},
		{"validate at its arg", []string{"--name=a", "--rw=randread", "--ioengine=psync", "--fixedbufs"}, workload.ErrInvalid,
			`args[3]: job "a": fixedbufs: ioengine=psync does not take it`},
		{"validate at name", []string{"--name=a", "--time_based", "--name=b"}, workload.ErrInvalid, `args[1]: job "a": time_based: needs a runtime`},
		{"validate global at its arg", []string{"--iodepth=2", "--iodepth_batch=4", "--name=a"}, workload.ErrInvalid, `args[1]: job "a": iodepth_batch_submit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := parseArgs(tc.args)
			wantError(t, jobs, err, tc.is, tc.msg)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "" || pe.Arg < 0 {
				t.Errorf("error %#v: want a *ParseError with an argument index", err)
			}
		})
	}
}

// roundTrip checks that ParseFio reads Format(j) back to j.Normalized().
func roundTrip(t *testing.T, j workload.Job) {
	t.Helper()
	s := Format(j)
	got, err := parseFile(strings.NewReader(s), "string")
	if err != nil {
		t.Fatalf("parseFile(String()): %v\n%s", err, s)
	}
	if diff := cmp.Diff([]workload.Job{j.Normalized()}, got); diff != "" {
		t.Errorf("round trip of\n%s(-want +got):\n%s", s, diff)
	}
}

// TestDocTable checks that doc.go's option table is the rendering of
// the option table (optionTable): every accepted option with its aliases
// and doc, in the table's order. -update rewrites doc.go's table.
func TestDocTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	const head = "//\toption                aliases                Job field and notes\n"
	start := bytes.Index(src, []byte(head))
	if start < 0 {
		t.Fatal("doc.go has no option table")
	}
	start += len(head)
	end := start + bytes.Index(src[start:], []byte("//\n"))
	var rows strings.Builder
	for _, o := range optionTable {
		rows.WriteString(docRow(o))
	}
	if got := string(src[start:end]); got != rows.String() {
		if *testenv.Update {
			out := slices.Concat(src[:start], []byte(rows.String()), src[end:])
			if err := os.WriteFile("doc.go", out, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("doc.go's option table is not optionTable's (go test -run TestDocTable -update rewrites it):\n%s",
			lineDiff(got, rows.String()))
	}
	for _, name := range FioOptions() {
		if fio.IsCommandLineOption(name) && !fio.IsOption(name) {
			t.Errorf("%s is both accepted and one of fio's command-line options", name)
		}
	}
}

// docRow is an option's row of doc.go's table: name, aliases and doc
// in columns.
func docRow(o fioOption) string {
	pad := func(s string, col int) string { return s + strings.Repeat(" ", max(2, col-len(s))) }
	line := pad(o.name, 22)
	if len(o.aliases) > 0 {
		line = pad(line+strings.Join(o.aliases, ", "), 45)
	} else {
		line = pad(line, 45)
	}
	return "//\t" + line + o.doc + "\n"
}

// lineDiff lists the lines of got not in want (-) and those of want
// missing from got (+).
func lineDiff(got, want string) string {
	var b strings.Builder
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// fioBinary returns the path of fio, or skips: fio is a reference for
// these tests, never a dependency of the package.
func fioBinary(t *testing.T) string {
	return testenv.Fio(t, "the comparison with fio's own parser")
}

// TestFioInterop compares ParseFio with the installed fio: fio --showcmd
// turns each job file under testdata/jobs into a command line, which
// ParseFioArgs must read to the same jobs; and fio --parse-only must
// accept what Format prints.
func TestFioInterop(t *testing.T) {
	fio := fioBinary(t)
	files, err := filepath.Glob("../testdata/jobs/*.fio")
	if err != nil || len(files) == 0 {
		t.Fatalf("no job files under ../testdata/jobs (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			jobs, err := parseFile(f, file)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(fio, "--showcmd", file).CombinedOutput()
			if err != nil {
				t.Fatalf("fio --showcmd %s: %v\n%s", file, err, out)
			}
			args := strings.Fields(string(out))
			if len(args) == 0 || args[0] != "fio" {
				t.Fatalf("fio --showcmd printed %q", out)
			}
			fromArgs, err := parseArgs(args[1:])
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", args[1:], err)
			}
			if diff := cmp.Diff(jobs, fromArgs); diff != "" {
				t.Errorf("job file vs fio --showcmd (-file +args):\n%s", diff)
			}
			var all strings.Builder
			for _, j := range jobs {
				all.WriteString(Format(j))
			}
			printed := filepath.Join(t.TempDir(), "printed.fio")
			if err := os.WriteFile(printed, []byte(all.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err = exec.Command(fio, "--parse-only", printed).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("fio --parse-only rejects Format():\n%s\n%v: %s", all.String(), err, out)
			}
			back, err := parseFile(strings.NewReader(all.String()), "printed.fio")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jobs, back); diff != "" {
				t.Errorf("String round trip (-file +printed):\n%s", diff)
			}
		})
	}
}

func TestFioOptions(t *testing.T) {
	names := FioOptions()
	if !slices.IsSorted(names) {
		t.Error("FioOptions is not sorted")
	}
	for _, want := range []string{"bs", "blocksize", "rw", "readwrite", "ss_dur", "steadystate_duration", "iodepth_batch"} {
		if !slices.Contains(names, want) {
			t.Errorf("FioOptions lacks %s", want)
		}
	}
}

// fio's random_generator=lfsr never draws an offset twice in a pass, with
// norandommap too (fio's t/jobs/t0021: 256 blocks of 4k, every offset
// read once): the job keeps the random map, a permutation without
// memory. With several block sizes (where fio's lfsr does not apply),
// or another generator, norandommap stays.
func TestParseFioLFSR(t *testing.T) {
	parse := func(in string) workload.Job {
		t.Helper()
		jobs, err := parseFile(strings.NewReader(in), "t0021.fio")
		if err != nil || len(jobs) != 1 {
			t.Fatalf("%v (%d jobs)", err, len(jobs))
		}
		return jobs[0]
	}
	j := parse("[test]\nioengine=null\nfilesize=1M\nrw=randread\nnorandommap=1\nrandom_generator=lfsr\n")
	if j.NoRandomMap {
		t.Fatal("lfsr with one block size kept norandommap")
	}
	p, err := iogen.NewPattern(&j, 1<<20, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for range 256 {
		seen[p.Next().Offset] = true
	}
	if len(seen) != 256 {
		t.Errorf("%d of 256 offsets in a pass, want every one", len(seen))
	}
	for _, in := range []string{
		"[test]\nsize=1M\nrw=randread\nnorandommap=1\nrandom_generator=tausworthe\n",
		"[test]\nsize=1M\nrw=randread\nbsrange=512-4k\nrandom_generator=lfsr\nnorandommap\n",
	} {
		if !parse(in).NoRandomMap {
			t.Errorf("%q: norandommap dropped", in)
		}
	}
}

// write_lat_log, write_bw_log, write_iops_log and write_hist_log given
// bare name their logs after the job, as fio does (t/jobs/t0023 reads basic_bw.log); in
// [global], after each job's own name.
func TestParseFioBareLogOptions(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[global]\nioengine=null\nsize=1m\nwrite_bw_log\nper_job_logs=0\n[basic]\n[named]\nwrite_bw_log=mine\nwrite_lat_log\n"), "t0023.fio")
	if err != nil {
		t.Fatal(err)
	}
	got := [][3]string{}
	for _, j := range jobs {
		got = append(got, [3]string{j.Logs.Lat, j.Logs.BW, j.Logs.IOPS})
	}
	want := [][3]string{{"", "basic", ""}, {"named", "mine", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("logs %q, want %q", got, want)
	}
	h, err := parseFile(strings.NewReader("[a]\nsize=1m\nwrite_hist_log\n"), "h.fio")
	if err != nil || h[0].WriteHistLog != "a" {
		t.Errorf("bare write_hist_log: %v, %+v", err, h)
	}
	if _, err := parseFile(strings.NewReader("[a]\nsize=1m\nfilename\n"), "f.fio"); err == nil || !strings.Contains(err.Error(), "needs a value") {
		t.Errorf("bare filename: %v, want needs a value", err)
	}
}

// A block size given per direction with the same value for each ("bs=8k,8k,8k",
// fio's t/jobs/t0023) is that one size.
func TestParseFioSameBlockSizeEveryDirection(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[a]\nsize=1m\nbs=8k,8k,8k\n[b]\nsize=1m\nbsrange=512-4k,512-4k\n[c]\nsize=1m\nbssplit=4k/50:8k/50,4k/50:8k/50\n"), "t.fio")
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].BlockSize != 8<<10 || jobs[1].BlockSizeRange != (workload.BlockSizeRange{Min: 512, Max: 4096}) || len(jobs[2].BlockSizeSplit) != 2 {
		t.Errorf("jobs %+v", jobs)
	}
}

// An error in an included file names that file and line; a value an
// included file set that the job refuses as a whole names the include's
// line too; a cycle of includes is an error at the include that closes
// it.
func TestParseFioIncludeErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bad.fio":   "bs=4k\nbs=4q\n",
		"depth.fio": "rw=randread\niodepth=2\niodepth_batch=4\n",
		"loop.fio":  "bs=4k\ninclude loop2.fio\n",
		"loop2.fio": "include loop.fio\n",
		"hdr.fio":   "[b]\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	main := filepath.Join(dir, "main.fio")
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		job string
		is  error
		msg string
	}{
		{"[a]\ninclude bad.fio\n", workload.ErrInvalid, in("bad.fio") + `:2: job "a": bs: invalid size "4q"`},
		{"[a]\ninclude depth.fio\n", workload.ErrInvalid, in("depth.fio") + `:3: job "a": iodepth_batch_submit: 4 is outside [1, iodepth=2]`},
		{"[global]\ninclude depth.fio\n[a]\niodepth=8\n[b]\n", workload.ErrInvalid, in("depth.fio") + `:3: job "b": iodepth_batch_submit: 4 is outside [1, iodepth=2]`},
		{"[a]\n\ninclude loop.fio\n", ErrSyntax, in("loop2.fio") + `:1: job "a": include loop.fio: a cycle: ` + in("loop.fio") + " includes " + in("loop2.fio") + " includes " + in("loop.fio")},
		{"[a]\ninclude hdr.fio\n", ErrSyntax, in("hdr.fio") + `:1: job "a": section header "[b]" in an included file`},
	} {
		_, err := parseFile(strings.NewReader(tc.job), main)
		if !errors.Is(err, tc.is) || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want %v containing %q", tc.job, err, tc.is, tc.msg)
		}
		var pe *ParseError
		if errors.As(err, &pe) && !strings.HasPrefix(tc.msg, pe.File+":") {
			t.Errorf("%q: ParseError.File %q", tc.job, pe.File)
		}
	}
}

// parseFile reads a job file's jobs with Parse.
func parseFile(r io.Reader, name string) ([]workload.Job, error) {
	jobs, _, err := Parse(r, name, Config{})
	return jobs, err
}

// parseArgs reads a command line's jobs with Parse.
func parseArgs(args []string) ([]workload.Job, error) {
	jobs, _, err := Parse(nil, "", Config{Args: args})
	return jobs, err
}

// parseFileArgs reads a job file's jobs with a command line's options
// around it with Parse.
func parseFileArgs(r io.Reader, name string, args []string) ([]workload.Job, error) {
	jobs, _, err := Parse(r, name, Config{Args: args})
	return jobs, err
}

// TestFixedBufsPrinted: the three states of fixedbufs (given as 1, given
// as 0, not given) print as given and read back as they were.
func TestFixedBufsPrinted(t *testing.T) {
	for _, tc := range []struct {
		j    workload.Job
		line string
	}{
		{workload.Job{Name: "on", Engine: "io_uring", FixedBufs: true}, "fixedbufs=1\n"},
		{workload.Job{Name: "off", Engine: "io_uring", NoFixedBufs: true}, "fixedbufs=0\n"},
		{workload.Job{Name: "unset", Engine: "io_uring"}, ""},
	} {
		text := Format(tc.j)
		if tc.line != "" && !strings.Contains(text, tc.line) || tc.line == "" && strings.Contains(text, "fixedbufs") {
			t.Errorf("%s: Format printed\n%s\nwant the line %q", tc.j.Name, text, tc.line)
		}
		if diff := cmp.Diff(tc.j.Normalized(), roundTripJob(t, tc.j)); diff != "" {
			t.Errorf("%s: read back (-want +got):\n%s", tc.j.Name, diff)
		}
	}
}
