package fioout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/runner"
)

// group_reporting in [global] over several sections (as the
// azure-storage-fuse files have it): fio 3.33 sums every job of a
// reporting group into one entry named after its first job, whatever
// their sections, and starts a new entry at a stonewall or new_group or
// at a job without group_reporting. stortest's JSON has the same entries
// with the same names and I/O counts.
func TestGroupReportingAcrossSectionsMatchesFio(t *testing.T) {
	fio := testenv.Fio(t, "the comparison with fio's group_reporting")
	target := fileTarget(t, 2<<20)
	for _, tail := range []string{
		"[job1]\nnumjobs=2\n[job2]\noffset=1m\n",
		"[job1]\nnumjobs=2\n[job2]\nstonewall\n[job3]\n[job4]\nnew_group\ngroup_reporting=0\n[job5]\n",
	} {
		text := fmt.Sprintf("[global]\nname=blob\nbs=64k\nsize=1m\nfilename=%s\nrw=write\ngroup_reporting\n%s", target.Path, tail)
		f := filepath.Join(t.TempDir(), "g.fio")
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
		out, err := exec.Command(fio, "--output-format=json", f).Output()
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(out[bytes.IndexByte(out, '{'):], &doc))

		jobs, _, err := fiojob.Parse(strings.NewReader(text), "g.fio", fiojob.Config{})
		require.NoError(t, err)
		res, err := runner.RunJobs(context.Background(), jobs, workload.Options{})
		require.NoError(t, err)
		ours := ourFioJSON(t, res, FormatJSON)
		var want, got []string
		for _, v := range at(doc, "jobs").([]any) {
			if at(v, "jobname") != nil { // fio 3.33 adds a nameless entry after some groups
				want = append(want, fmt.Sprintf("%v:%v", at(v, "jobname"), at(v, "write", "total_ios")))
			}
		}
		for _, v := range at(ours, "jobs").([]any) {
			got = append(got, fmt.Sprintf("%v:%v", at(v, "jobname"), at(v, "write", "total_ios")))
		}
		assert.Equal(t, want, got, "%s", tail)
	}
}

// Summed clones (group_reporting) and summed directions
// (unified_rw_reporting=mixed) carry every count of each part: the
// datagrams UDP receivers found missing too, which sumJobs once left
// out for every clone after the first.
func TestSumsCarryEveryCount(t *testing.T) {
	part := func(ios, drops uint64) *workload.JobResult {
		j := &workload.JobResult{}
		for d := range workload.NumDirs {
			j.Dirs[d] = workload.DirStats{Clat: latency.NewFio(), Slat: latency.NewFio(), Lat: latency.NewFio()}
		}
		r := &j.Dirs[workload.DirRead]
		r.IOs, r.Bytes, r.DryIOs, r.DryBytes, r.ShortIOs, r.DropIOs, r.Errors = ios, 4096*ios, 1, 4096, 2, drops, 3
		r.Clat.Add(1000)
		w := &j.Dirs[workload.DirWrite]
		w.IOs, w.DropIOs = ios, drops
		w.Clat.Add(2000)
		return j
	}
	s := sumJobs([]*workload.JobResult{part(10, 1), part(20, 4)}).Dirs[workload.DirRead]
	assert.Equal(t, workload.DirStats{IOs: 30, Bytes: 4096 * 30, DryIOs: 2, DryBytes: 8192, ShortIOs: 4, DropIOs: 5, Errors: 6},
		workload.DirStats{IOs: s.IOs, Bytes: s.Bytes, DryIOs: s.DryIOs, DryBytes: s.DryBytes, ShortIOs: s.ShortIOs, DropIOs: s.DropIOs, Errors: s.Errors})
	assert.EqualValues(t, 2, s.Clat.Count())
	m := mixed(part(10, 1)).Dirs[workload.DirRead]
	assert.EqualValues(t, 20, m.IOs)
	assert.EqualValues(t, 2, m.DropIOs)
	assert.EqualValues(t, 2, m.Clat.Count())
}
