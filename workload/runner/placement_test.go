package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

func TestFioMoreOptionsParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []workload.Job
	}{
		{
			name: "name in [global] is ignored, as fio does",
			in:   "[global]\nname=fio-rand-read\nioengine=null\nsize=1m\n[file1]\n",
			want: norm(workload.Job{Name: "file1", Engine: "null", Size: 1 << 20}),
		},
		{
			name: "thread, threads and random_generator change nothing",
			in:   "[global]\nthread\nthreads=1\nrandom_generator=lfsr\n[a]\nsize=1m\nverify_dump=1\nexperimental_verify=1\nverify_state_save=1\nverify_fatal=1\nverify_interval=512\ncreate_serialize=0\n",
			want: norm(workload.Job{Name: "a", Size: 1 << 20}),
		},
		{
			name: "filesize sets size when size is not given",
			in:   "[a]\nfilesize=256k\n[b]\nfilesize=1m\nsize=64k\n",
			want: norm(workload.Job{Name: "a", Size: 256 << 10, Placement: workload.Placement{FileSize: 256 << 10}},
				workload.Job{Name: "b", Size: 64 << 10, Placement: workload.Placement{FileSize: 1 << 20}}),
		},
		{
			name: "directory holds relative file names and the default one",
			in:   "[global]\ndirectory=/tmp/d\n[a]\nfilename=f\n[b]\nfilename=/abs/f\n[c]\n",
			want: norm(workload.Job{Name: "a", Filename: "/tmp/d/f"}, workload.Job{Name: "b", Filename: "/abs/f"},
				workload.Job{Name: "c", Placement: workload.Placement{Directory: "/tmp/d"}}),
		},
		{
			name: "stonewall, wait_for, new_group, startdelay, io_size, nrfiles=1",
			in:   "[a]\nio_limit=8k\nnr_files=1\n[b]\nstonewall\n[c]\nwait_for=a\nnew_group\nstartdelay=500ms\nwait_for_previous=0\n",
			want: norm(workload.Job{Name: "a", Placement: workload.Placement{IOSize: 8 << 10}}, workload.Job{Name: "b", Ordering: workload.Ordering{Stonewall: true}},
				workload.Job{Name: "c", Ordering: workload.Ordering{WaitFor: "a", NewGroup: true, StartDelay: 500 * time.Millisecond}}),
		},
		{
			name: "verify kinds, do_verify, verify_backlog",
			in:   "[a]\nverify=md5\ndo_verify=0\n[b]\nverify=xxhash\nverify_backlog=1k\n[c]\nverify=sha3-512\n[d]\nverify=meta\n",
			want: norm(workload.Job{Name: "a", Verify: workload.VerifyMD5, NoVerifyPhase: true}, workload.Job{Name: "b", Verify: workload.VerifyXXHash, VerifyBacklog: 1024},
				workload.Job{Name: "c", Verify: workload.VerifySHA3_512}, workload.Job{Name: "d", Verify: workload.VerifyMeta}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFile(strings.NewReader(tc.in), "t.fio")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(formatJobs(got)) != fmt.Sprint(formatJobs(tc.want)) {
				t.Errorf("got\n%v\nwant\n%v", got, tc.want)
			}
			// Each job prints as a section that reads back the same.
			for _, j := range got {
				back := roundTripJob(t, j)
				if fiojob.Format(back) != fiojob.Format(j) {
					t.Errorf("%s reads back as\n%v\nwant\n%v", j.Name, back, j)
				}
			}
		})
	}
}

func TestFioMoreErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[a]\nnrfiles=2\n", "t.fio:2: job \"a\": nrfiles: a job of 2 files needs size or filesize"},
		{"[a]\nnrfiles=2\nsize=1m\nioengine=mmap\n", "t.fio:2: job \"a\": nrfiles: nrfiles=2 with ioengine=mmap (several files per job with ioengine null, sync, psync, pvsync2, libaio, io_uring, posixaio, filecreate, filestat or filedelete) is not supported by stortest"},
		{"[a]\nnrfiles=2\nsize=1m\nverify=md5\n", "job \"a\": verify: verify with nrfiles=2 is not supported by stortest"},
		{"[a]\nnrfiles=2\nsize=1m\nfile_service_type=pareto:1.5\n", "file_service_type \"pareto:1.5\": pareto's h must be between 0 and 1"},
		{"[a]\nfile_service_type=roundrobin:x\nfile_service_type=rand\n", "unknown file_service_type \"rand\""},
		{"[a]\nrw=rw\nsize=1m\nloops=2\nunlink_each_loop=1\n", "unlink_each_loop: unlink_each_loop with rw=rw (fio fails the second loop's reads: the file is gone) is not supported by stortest"},
		{"[a]\nfilesize=1k-4k\n", "t.fio:2: job \"a\": filesize: filesize=1k-4k: a range of file sizes for one file is not supported by stortest"},
		{"[a]\n[b]\nwait_for=c\n", "t.fio:3: job \"b\": wait_for: no job \"c\" before this one"},
		{"[a]\nverify=pattern\n", "t.fio:2: job \"a\": verify: verify=pattern needs verify_pattern"},
		{"[a]\nioengine=e4defrag\n", "t.fio:2: job \"a\": ioengine: fio ioengine e4defrag is not supported by stortest"},
		{"[a]\ndonorname=x\n", "t.fio:2: job \"a\": fio option donorname (ioengine e4defrag) is not supported by stortest"},
		{"[a]\nport=8888\n", "t.fio:2: job \"a\": port: ioengine=psync does not take it (only net)"},
		{"[a]\ncmdprio_percentage=20\n", "t.fio:2: job \"a\": cmdprio_percentage: ioengine=psync does not take the cmdprio options (only libaio, io_uring)"},
		{"[a]\nrandom_generator=mt\n", "unknown random_generator \"mt\""},
	} {
		_, err := parseFile(strings.NewReader(tc.in), "t.fio")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
		if strings.Contains(tc.want, "not supported") && !errors.Is(err, workload.ErrUnsupported) {
			t.Errorf("%q: %v is not workload.ErrUnsupported", tc.in, err)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestRunStonewallWaitForStartDelay(t *testing.T) {
	res := runJobFile(t, `[global]
ioengine=null
size=1g
time_based
runtime=200ms
[a]
[b]
stonewall
[c]
wait_for=a
startdelay=100ms
[d]
`)
	at := map[string]*workload.JobResult{}
	for _, j := range res.Jobs {
		at[j.Name] = j
	}
	// A job's Start is read a little after its measuring starts: allow
	// for that.
	const slack = 5 * time.Millisecond
	end := func(n string) time.Time { return at[n].Start.Add(at[n].Runtime - slack) }
	// b waits for a; c for a and then 100 ms; d, after the stonewall at
	// b, for a only, as fio starts it right after b.
	if at["b"].Start.Before(end("a")) {
		t.Errorf("b started %v before a ended", end("a").Sub(at["b"].Start))
	}
	if at["c"].Start.Before(end("a").Add(90 * time.Millisecond)) {
		t.Errorf("c started %v after a ended, want >= 100ms", at["c"].Start.Sub(end("a")))
	}
	if at["c"].Start.After(end("b").Add(2 * slack)) {
		t.Errorf("c waited for b too")
	}
	if at["d"].Start.Before(end("a")) {
		t.Errorf("d did not wait for a, before the stonewall")
	}
	if at["d"].Start.After(end("b").Add(2 * slack)) {
		t.Errorf("d waited for b, after the stonewall")
	}
}

func TestRunIOSizeAndFileSize(t *testing.T) {
	dir := t.TempDir()
	// As fio 3.33 (t/jobs/t0032): size=1280k io_size=2560k moves 2560k.
	res := runJobFile(t, fmt.Sprintf(`[global]
bs=128k
[null]
ioengine=null
size=1280k
io_size=2560k
[file]
filename=%s/f
filesize=1m
rw=write
[indir]
directory=%s
size=256k
rw=write
`, dir, dir))
	if got := res.Jobs[0].Dirs[workload.DirRead].Bytes; got != 2560<<10 {
		t.Errorf("io_size=2560k moved %d bytes", got)
	}
	if got := res.Jobs[1].Dirs[workload.DirWrite].Bytes; got != 1<<20 {
		t.Errorf("filesize=1m moved %d bytes", got)
	}
	if st, err := os.Stat(filepath.Join(dir, "f")); err != nil || st.Size() != 1<<20 {
		t.Errorf("filesize=1m laid out %v (%v)", st, err)
	}
	// fio's default file name, jobname.jobnum.filenum, in the directory.
	if st, err := os.Stat(filepath.Join(dir, "indir.0.0")); err != nil || st.Size() != 256<<10 {
		t.Errorf("directory=: %v (%v)", st, err)
	}
}

func TestRunVerifyPhases(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	run := func(text string) []*workload.JobResult {
		t.Helper()
		return runJobFile(t, strings.ReplaceAll(text, "FILE", f)).Jobs
	}
	// As t/jobs/t0029: written without a verify phase, then read back
	// twice by a job that only reads.
	jobs := run("[global]\nfilename=FILE\nsize=64k\nverify=md5\n[write]\nrw=write\ndo_verify=0\n[read]\nstonewall\nrw=read\nloops=2\n")
	if jobs[0].Verify.Checked != 0 || jobs[1].Verify.Checked != 32 {
		t.Errorf("checked %d, %d blocks; want 0 (do_verify=0), 32 (16 blocks read twice)", jobs[0].Verify.Checked, jobs[1].Verify.Checked)
	}
	// verify_backlog reads back as it goes; every block is checked once.
	jobs = run("[a]\nfilename=FILE\nsize=64k\nrw=randwrite\nverify=crc64\nverify_backlog=3\n")
	if jobs[0].Verify.Checked != 16 || jobs[0].Dirs[workload.DirRead].IOs != 16 {
		t.Errorf("verify_backlog=3: checked %d, read %d; want 16", jobs[0].Verify.Checked, jobs[0].Dirs[workload.DirRead].IOs)
	}
	// A read-only verify job finds blocks that are not what was written.
	if err := os.WriteFile(f, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	jobsR, err := parseFile(strings.NewReader("[r]\nfilename="+f+"\nsize=64k\nrw=read\nverify=md5\n"), "t.fio")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunJobs(context.Background(), jobsR, workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs[0].Verify.Mismatches == 0 || res.Jobs[0].Err == nil {
		t.Errorf("zeroed blocks passed a read-only verify: %+v", res.Jobs[0].Verify)
	}
}

// filename_format names each clone's files as fio 3.33 names them: the
// keywords in any case, $clientuid empty, directories made, directory=
// before the name; the file engines' nrfiles files too. The files left
// and the I/O counts are fio's.
func TestFilenameFormatMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "ff.fio", `[global]
size=64k
bs=4k
rw=write
[one]
numjobs=2
filename_format=f.$jobnum.$filenum
[Two]
filename_format=d/$JOBNAME/$jobnum.bin
[three]
filename_format=$clientuid-x$jobnumy
[four]
directory=sub
filename_format=g$jobname
[five]
ioengine=filecreate
nrfiles=3
filename_format=m.$jobnum.$filenum
`, map[string]string{"sub/.keep": ""})
	want := map[string]int64{"f.0.0": 64 << 10, "f.1.0": 64 << 10, "d/Two/0.bin": 64 << 10, "-x0y": 64 << 10, "sub/gfour": 64 << 10,
		"m.0.0": 0, "m.0.1": 0, "m.0.2": 0}
	if !reflect.DeepEqual(fio.Files, want) {
		t.Fatalf("fio left %v, want %v", fio.Files, want)
	}
	if !reflect.DeepEqual(ours.Files, fio.Files) {
		t.Errorf("stortest left %v, fio %v", ours.Files, fio.Files)
	}
	if !reflect.DeepEqual(ours.Jobs, fio.Jobs) {
		t.Errorf("jobs:\nstortest %v\nfio      %v", ours.Jobs, fio.Jobs)
	}
}

// One name for every clone is refused: fio runs the first clone on it and
// the others on nothing.
func TestFilenameFormatSharedRefused(t *testing.T) {
	_, err := parseFile(strings.NewReader("[a]\nsize=64k\nnumjobs=2\nfilename_format=shared.$filenum\n"), "t.fio")
	if !errors.Is(err, workload.ErrUnsupported) || !strings.Contains(err.Error(), `t.fio:4: job "a": filename_format: filename_format=shared.$filenum without $jobnum and numjobs=2`) {
		t.Errorf("error %v", err)
	}
	if _, err := parseFile(strings.NewReader("[a]\nsize=64k\nnumjobs=2\nfilename_format=s.$JobNum\n"), "t.fio"); err != nil {
		t.Error(err)
	}
}

// size=N% and size=N%% size a job to a share of its file as fio 3.33
// does: of the whole file, at most what lies past the offset, rounded
// down to the block size.
func TestSizePercentMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "pct.fio", `[global]
filename=data
ioengine=psync
[quarter]
rw=read
size=25%
[tail]
rw=write
bs=64k
offset=256k
size=100%%
[odd]
rw=randread
numjobs=2
size=13%
`, map[string]string{"data": strings.Repeat("x", 1<<20)})
	want := []ranJob{
		{Name: "quarter", IOs: [workload.NumDirs]uint64{64, 0, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 0, 0}},
		{Name: "tail", IOs: [workload.NumDirs]uint64{0, 12, 0}, Bytes: [workload.NumDirs]uint64{0, 768 << 10, 0}},
		{Name: "odd", IOs: [workload.NumDirs]uint64{33, 0, 0}, Bytes: [workload.NumDirs]uint64{33 << 12, 0, 0}},
		{Name: "odd", IOs: [workload.NumDirs]uint64{33, 0, 0}, Bytes: [workload.NumDirs]uint64{33 << 12, 0, 0}},
	}
	checkRanJobs(t, fio, ours, want)
	for _, bad := range []string{"size=0%", "size=101%", "size=x%"} {
		if _, err := parseFile(strings.NewReader("[a]\n"+bad+"\n"), "t.fio"); !errors.Is(err, workload.ErrInvalid) {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// offset=N% places a job as fio 3.33 does: N% into its file, rounded up
// to offset_align, else to the block size; with size=N% the size is what
// lies past it at most.
func TestOffsetPercentMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "off.fio", `[global]
filename=data
ioengine=psync
[half]
rw=read
offset=50%
size=64k
[odd]
rw=write
bs=16k
offset=13%
size=13%
[aligned]
rw=read
offset=13%
offset_align=64k
size=100%
`, map[string]string{"data": strings.Repeat("x", 1<<20)})
	want := []ranJob{
		{Name: "half", IOs: [workload.NumDirs]uint64{16, 0, 0}, Bytes: [workload.NumDirs]uint64{64 << 10, 0, 0}},
		{Name: "odd", IOs: [workload.NumDirs]uint64{0, 8, 0}, Bytes: [workload.NumDirs]uint64{0, 128 << 10, 0}},
		{Name: "aligned", IOs: [workload.NumDirs]uint64{208, 0, 0}, Bytes: [workload.NumDirs]uint64{832 << 10, 0, 0}}, // from 192k
	}
	checkRanJobs(t, fio, ours, want)
}

// name= renames a job as fio 3.33 does: the first clone takes the new
// name, later clones keep the section's, and every clone's files are
// named after the section (also through $jobname).
func TestRenamedJobMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "rn.fio", `[global]
size=64k
bs=4k
rw=write
[sec]
name=custom
numjobs=3
[fmt]
name=other
numjobs=2
filename_format=$jobname.f$jobnum
`, nil)
	want := []string{"custom", "sec", "sec", "other", "fmt"}
	var names []string
	for _, j := range fio.Jobs {
		names = append(names, j.Name)
	}
	require.Equal(t, want, names, "fio's job names")
	wantFiles := map[string]int64{"sec.0.0": 64 << 10, "sec.1.0": 64 << 10, "sec.2.0": 64 << 10, "fmt.f0": 64 << 10, "fmt.f1": 64 << 10}
	require.Equal(t, wantFiles, fio.Files, "fio's files")
	assert.Equal(t, fio.Jobs, ours.Jobs)
	assert.Equal(t, fio.Files, ours.Files)
}
