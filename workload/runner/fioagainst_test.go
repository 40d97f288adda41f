package runner

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ranJob is what the comparisons with fio look at in one job (one clone):
// its name and, per direction, its I/O count and bytes.
type ranJob struct {
	Name  string
	IOs   [workload.NumDirs]uint64
	Bytes [workload.NumDirs]uint64
}

// fioRun is one tool's run of a job file: its jobs in order and the files
// it left in the working directory (path relative to it, and size).
type fioRun struct {
	Jobs  []ranJob
	Files map[string]int64
	// IOLogs are the texts of the files named *.iolog it left (its
	// write_iolog logs).
	IOLogs map[string]string
	// Alloc are the bytes the file system holds for each file left
	// (st_blocks: a hole holds none).
	Alloc map[string]int64
}

// runBoth runs the job file dir/name (text, written there, with the other
// files of extra beside it) under fio 3.33 and under stortest (Parse and
// RunJobs), each in a fresh copy of dir as the working directory, with
// args as the command-line options after the file. It returns both runs;
// the files each left behind are listed without the job files.
func runBoth(t *testing.T, name, text string, extra map[string]string, args ...string) (fio, ours fioRun) {
	t.Helper()
	bin := fioBinary(t)
	files := map[string]string{name: text}
	for k, v := range extra {
		files[k] = v
	}
	setup := func() string {
		dir := t.TempDir()
		for p, s := range files {
			p = filepath.Join(dir, p)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		}
		return dir
	}
	left := func(dir string, run *fioRun) map[string]int64 {
		m := map[string]int64{}
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if _, ok := files[rel]; ok || rel == "fio.json" {
				return nil
			}
			if strings.HasSuffix(rel, ".iolog") {
				b, err := os.ReadFile(p)
				if run.IOLogs == nil {
					run.IOLogs = map[string]string{}
				}
				run.IOLogs[rel] = string(b)
				return err
			}
			st, err := d.Info()
			if err == nil {
				m[rel] = st.Size()
				if run.Alloc == nil {
					run.Alloc = map[string]int64{}
				}
				if sys, ok := st.Sys().(*syscall.Stat_t); ok {
					run.Alloc[rel] = sys.Blocks * 512
				}
			}
			return err
		}))
		return m
	}

	dir := setup()
	cmd := exec.Command(bin, append([]string{"--output-format=json", "--output=fio.json", name}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "fio: %s", out)
	b, err := os.ReadFile(filepath.Join(dir, "fio.json"))
	require.NoError(t, err)
	var doc struct {
		Jobs []struct {
			Name              string `json:"jobname"`
			Read, Write, Trim struct {
				IOs   uint64 `json:"total_ios"`
				Bytes uint64 `json:"io_bytes"`
			}
		}
	}
	if i := strings.IndexByte(string(b), '{'); i > 0 {
		b = b[i:] // notes before the document
	}
	require.NoError(t, json.Unmarshal(b, &doc), "%s", b)
	for _, j := range doc.Jobs {
		fio.Jobs = append(fio.Jobs, ranJob{j.Name, [workload.NumDirs]uint64{j.Read.IOs, j.Write.IOs, j.Trim.IOs},
			[workload.NumDirs]uint64{j.Read.Bytes, j.Write.Bytes, j.Trim.Bytes}})
	}
	fio.Files = left(dir, &fio)

	dir = setup()
	t.Chdir(dir)
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	jobs, _, err := fiojob.Parse(f, name, fiojob.Config{Args: args})
	require.NoError(t, err)
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	for _, j := range res.Jobs {
		require.NoError(t, j.Err, "job %s", j.Name)
		var r ranJob
		r.Name = j.Name
		for d := range workload.NumDirs {
			r.IOs[d], r.Bytes[d] = j.Dirs[d].IOs, j.Dirs[d].Bytes
		}
		ours.Jobs = append(ours.Jobs, r)
	}
	ours.Files = left(dir, &ours)
	return fio, ours
}

// checkRanJobs checks runBoth's runs: fio's jobs moved want (else the
// test stops: the expectation is wrong, not stortest) and stortest's
// moved what fio's did.
func checkRanJobs(t *testing.T, fio, ours fioRun, want []ranJob) {
	t.Helper()
	if !reflect.DeepEqual(fio.Jobs, want) {
		t.Fatalf("fio: %v, want %v", fio.Jobs, want)
	}
	if !reflect.DeepEqual(ours.Jobs, fio.Jobs) {
		t.Errorf("jobs:\nstortest %v\nfio      %v", ours.Jobs, fio.Jobs)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// Includes are read where fio 3.33 reads them, in [global] and in job
// sections, relative to the working directory and else to the including
// file: the jobs move what fio's do.
func TestParseFioIncludeMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "jobs/main.fio", `[global]
include common/global.fio
[a]
include a.fio
rw=write
[b]
rw=randread
include common/b.fio
`, map[string]string{
		"jobs/common/global.fio": "size=64k\nioengine=psync\n",
		"jobs/a.fio":             "bs=8k\n",
		"jobs/common/b.fio":      "include bs.fio\nrandrepeat=0\n",
		"jobs/common/bs.fio":     "bs=16k\n",
	})
	want := []ranJob{
		{Name: "a", IOs: [workload.NumDirs]uint64{0, 8, 0}, Bytes: [workload.NumDirs]uint64{0, 64 << 10, 0}},
		{Name: "b", IOs: [workload.NumDirs]uint64{4, 0, 0}, Bytes: [workload.NumDirs]uint64{64 << 10, 0, 0}},
	}
	assert.Equal(t, want, fio.Jobs, "fio")
	assert.Equal(t, want, ours.Jobs, "stortest")
	assert.Equal(t, fio.Files, ours.Files, "files left")
}

// Options other projects' job files give that change no count: fio 3.33
// and stortest move the same I/Os with them (thread with any value,
// normal without a deviation, the deprecated verifysort, bwavgtime and
// iopsavgtime).
func TestFioQuietOptionsMatchFio(t *testing.T) {
	fio, ours := runBoth(t, "quiet.fio", `[global]
thread=8
size=256k
bwavgtime=250
iopsavgtime=250
[normal]
rw=randread
random_distribution=normal
[sorted]
rw=write
verify=md5
verifysort=1
verifysort_nr=64
`, nil)
	want := []ranJob{
		{Name: "normal", IOs: [workload.NumDirs]uint64{64, 0, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 0, 0}},
		{Name: "sorted", IOs: [workload.NumDirs]uint64{64, 64, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 256 << 10, 0}},
	}
	assert.Equal(t, want, fio.Jobs, "fio")
	assert.Equal(t, fio.Jobs, ours.Jobs, "stortest")
}

// clocksource takes fio 3.33's three names and changes no count, and
// trim_verify_zero (which checks only the blocks trim_percentage trims;
// fio on a regular file cannot trim with psync) changes none either: fio 3.33 and stortest move the same I/Os. An
// unknown clock source is refused by both.
func TestClockSourceAndTrimVerifyZeroMatchFio(t *testing.T) {
	fio, ours := runBoth(t, "clock.fio", `[global]
size=256k
[gtod]
clocksource=gettimeofday
rw=randread
[cgt]
clocksource=clock_gettime
rw=write
[cpu]
clocksource=cpu
rw=read
[tvz]
rw=write
verify=crc32c
trim_verify_zero=1
[tvz0]
rw=randwrite
trim_verify_zero=0
`, nil)
	want := []ranJob{
		{Name: "gtod", IOs: [workload.NumDirs]uint64{64, 0, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 0, 0}},
		{Name: "cgt", IOs: [workload.NumDirs]uint64{0, 64, 0}, Bytes: [workload.NumDirs]uint64{0, 256 << 10, 0}},
		{Name: "cpu", IOs: [workload.NumDirs]uint64{64, 0, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 0, 0}},
		{Name: "tvz", IOs: [workload.NumDirs]uint64{64, 64, 0}, Bytes: [workload.NumDirs]uint64{256 << 10, 256 << 10, 0}},
		{Name: "tvz0", IOs: [workload.NumDirs]uint64{0, 64, 0}, Bytes: [workload.NumDirs]uint64{0, 256 << 10, 0}},
	}
	assert.Equal(t, want, fio.Jobs, "fio")
	assert.Equal(t, fio.Jobs, ours.Jobs, "stortest")

	bin := fioBinary(t)
	for _, v := range []string{"CPU", "tsc", "cpux"} {
		out, err := exec.Command(bin, "--parse-only", "--name=x", "--size=64k", "--clocksource="+v).CombinedOutput()
		require.Error(t, err, "fio takes clocksource=%s: %s", v, out)
		_, _, err = fiojob.Parse(strings.NewReader("[x]\nsize=64k\nclocksource="+v+"\n"), "x.fio", fiojob.Config{})
		require.Error(t, err, "clocksource=%s", v)
		assert.Contains(t, err.Error(), "x.fio:3")
		assert.Contains(t, err.Error(), "unknown clocksource")
	}
}

// fio's $keywords ($mb_memory, $ncpus, $pagesize) in a job file, with and
// without arithmetic (which fio has bc compute, in whole numbers): fio
// 3.33 and stortest move the same I/Os on the same host.
func TestFioKeywordsMatchFio(t *testing.T) {
	t.Setenv("PAGES", "8") // ${NAME} first, then the keywords
	fio, ours := runBoth(t, "keywords.fio", `[global]
bs=$pagesize
[mem]
rw=write
size=($mb_memory%16+1)*$pagesize*4
[cpus]
rw=randread
filesize=$ncpus*$pagesize*8
numjobs=$ncpus
[plain]
rw=read
size=${PAGES}*$pagesize
`, nil)
	require.Len(t, fio.Jobs, 2+workload.ConfiguredCPUs())
	assert.Equal(t, uint64(32768), fio.Jobs[len(fio.Jobs)-1].Bytes[workload.DirRead])
	assert.Equal(t, fio.Jobs, ours.Jobs)
	t.Logf("fio: %+v", fio.Jobs)
}
