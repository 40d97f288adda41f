package baselines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// rawFio is the part of a recorded fio output the tests compare with.
type rawFio struct {
	Version string `json:"fio version"`
	Jobs    []struct {
		Name       string            `json:"jobname"`
		Options    map[string]string `json:"job options"`
		JobRuntime int64             `json:"job_runtime"`
		Read       *rawDir           `json:"read"`
		Write      *rawDir           `json:"write"`
		Trim       *rawDir           `json:"trim"`
	} `json:"jobs"`
}

type rawDir struct {
	IOBytes     uint64  `json:"io_bytes"`
	BWBytes     float64 `json:"bw_bytes"`
	IOPS        float64 `json:"iops"`
	TotalIOs    uint64  `json:"total_ios"`
	IOPSMean    float64 `json:"iops_mean"`
	IOPSSamples int     `json:"iops_samples"`
	BWMean      float64 `json:"bw_mean"`
	Clat        struct {
		N          uint64            `json:"N"`
		Percentile map[string]uint64 `json:"percentile"`
		Bins       map[string]uint64 `json:"bins"`
	} `json:"clat_ns"`
}

// Every recorded fio output imports: one baseline per job with fio's
// totals, throughput, statistics, printed percentiles and json+ bins.
func TestImportFioRecorded(t *testing.T) {
	for _, path := range fioFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var raw rawFio
			require.NoError(t, json.Unmarshal(data, &raw))
			bs := importFile(t, path)
			require.Len(t, bs, len(raw.Jobs))
			for i, rj := range raw.Jobs {
				b := bs[i]
				require.Equal(t, rj.Name, b.Name)
				require.Equal(t, raw.Version, b.Fingerprint.Version)
				require.Equal(t, b.Job.Engine, b.Fingerprint.Engine)
				require.Equal(t, rj.Name, b.Job.Name)
				require.Equal(t, rj.Options["filename"], b.Job.Filename)
				for k, v := range rj.Options {
					require.Equal(t, v, b.FioOptions[k], "option %s", k)
				}
				require.Empty(t, b.Seconds, "fio's JSON has no per-second samples")
				require.GreaterOrEqual(t, b.Runtime, time.Duration(rj.JobRuntime)*time.Millisecond)
				for di, rd := range []*rawDir{rj.Read, rj.Write, rj.Trim} {
					d := b.Dir(DirNames[di])
					if rd == nil || rd.TotalIOs == 0 {
						require.Nil(t, d, DirNames[di])
						continue
					}
					require.NotNil(t, d, DirNames[di])
					require.Equal(t, rd.TotalIOs, d.IOs)
					require.Equal(t, rd.IOBytes, d.Bytes)
					require.Equal(t, rd.IOPS, d.IOPS)
					require.Equal(t, rd.BWBytes, d.BW)
					require.Equal(t, rd.IOPSSamples, d.IOPSSamples.N)
					require.Equal(t, rd.IOPSMean, d.IOPSSamples.Mean)
					require.InDelta(t, rd.BWMean*1024, d.BWSamples.Mean, 1e-6, "bytes/s, not KiB/s")
					if rd.Clat.N == 0 {
						require.Nil(t, d.Clat)
						continue
					}
					require.Equal(t, rd.Clat.N, d.Clat.N)
					for _, p := range Percentiles {
						got, ok := d.Clat.Percentile(p)
						require.True(t, ok, "p%v", p)
						if want, listed := rd.Clat.Percentile[latency.PercentileKey(p)]; listed {
							require.Equal(t, want, got, "fio's printed p%v", p)
						}
					}
					require.NotNil(t, d.Clat.Hist)
					require.Equal(t, latency.FioGroups, d.Clat.Hist.Groups)
					require.Equal(t, rd.Clat.N, d.Clat.Hist.Count())
					require.Len(t, d.Clat.Hist.Bins, len(rd.Clat.Bins))
					for _, bin := range d.Clat.Hist.Bins {
						require.Equal(t, rd.Clat.Bins[strconv.FormatUint(bin.Value, 10)], bin.Count)
					}
				}
			}
		})
	}
}

// fio's options become the Job, where stortest understands them; the rest
// (group_reporting, fio's own) stay in FioOptions only.
func TestImportFioJob(t *testing.T) {
	for _, tc := range []struct {
		file string
		want workload.Job
	}{
		{"uring-qd32-lat.json", workload.Job{Name: "uring-qd32", Filename: "/dev/loop0", Engine: "io_uring", RW: workload.RandRead,
			BlockSize: 4096, IODepth: 32, Direct: true, Runtime: 3 * time.Second, LatPercentiles: true, SlatPercentiles: true}},
		{"psync-randrw.json", workload.Job{Name: "psync-randrw", Filename: "/tmp/tmp.9yXbMHW4Fg/file", Engine: "psync", RW: workload.RandRW,
			RWMixRead: 70, BlockSize: 4096, Size: 64 << 20, Runtime: 3 * time.Second}},
		{"null.json", workload.Job{Name: "null", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 1 << 30, Runtime: 2 * time.Second}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			bs := importFile(t, filepath.Join("..", "testdata", "fio", tc.file))
			require.Equal(t, tc.want.Normalized(), bs[0].Job)
			require.Equal(t, "0", bs[0].FioOptions["group_reporting"])
		})
	}
	// Global options apply to every job.
	bs := importFile(t, filepath.Join("..", "testdata", "fio", "two-jobs.json"))
	require.Len(t, bs, 2)
	for _, b := range bs {
		require.Equal(t, int64(16<<20), b.Job.Size)
		require.Equal(t, time.Second, b.Job.Runtime)
	}
	require.Equal(t, workload.RandWrite, bs[1].Job.RW)
	require.Equal(t, "write", bs[1].Dirs[0].Name)
}

// Clones printed separately (numjobs without group_reporting) merge into
// one baseline: counts add, histograms merge.
func TestImportFioMergesClones(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	jobs := doc["jobs"].([]any)
	doc["jobs"] = []any{jobs[0], jobs[0]}
	twice, err := json.Marshal(doc)
	require.NoError(t, err)
	one := importFile(t, filepath.Join("..", "testdata", "fio", "psync-randrw.json"))[0]
	bs, err := ImportFio(bytes.NewReader(twice), "twice")
	require.NoError(t, err)
	require.Len(t, bs, 1)
	b := bs[0]
	require.Equal(t, 2, b.Clones)
	for i, d := range b.Dirs {
		o := one.Dirs[i]
		require.Equal(t, 2*o.IOs, d.IOs)
		require.InDelta(t, 2*o.IOPS, d.IOPS, 1e-6)
		require.Equal(t, 2*o.Clat.N, d.Clat.N)
		require.Equal(t, o.Clat.P99, d.Clat.P99, "the same distribution twice has the same percentiles")
		require.InDelta(t, o.Clat.Mean, d.Clat.Mean, 1e-6)
		require.InDelta(t, o.Clat.Stddev, d.Clat.Stddev, o.Clat.Stddev*1e-3)
		require.Equal(t, Moments{}, d.IOPSSamples, "per-clone moments do not combine")
	}
}

func TestImportFioErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", "tiny-n25.json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		text string
		want string
		is   error
	}{
		{"not-json", "fio: something went wrong\n", "no JSON object", nil},
		{"truncated", string(data[:len(data)/2]), "line", nil},
		{"job-error", strings.Replace(string(data), `"error" : 0`, `"error" : 5`, 1), "fio reported error 5", ErrFioJob},
		{"no-io", strings.Replace(string(data), `"total_ios" : 25`, `"total_ios" : 0`, 1), "no I/O completed", ErrFioJob},
		{"runtime-0", strings.Replace(string(data), `"runtime" : 1,`, `"runtime" : 0,`, 1), "read: 25 I/Os with runtime 0 ms", ErrFioJob},
		{"iops-0", strings.Replace(string(data), `"iops" : 25000.000000,`, `"iops" : 0.000000,`, 1), "no throughput to compare", ErrFioJob},
		{"bad-bins", strings.Replace(string(data), `"812" : 2`, `"813" : 2`, 1), "not a bucket value", nil},
		{"no-jobs", `{"fio version": "fio-3.33", "jobs": []}`, "no jobs", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportFio(strings.NewReader(tc.text), "in.json")
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "in.json")
			if tc.is != nil {
				require.True(t, errors.Is(err, tc.is))
			}
		})
	}
}

// Plain json output (no bins): percentiles as fio printed them, no
// histogram.
func TestImportFioWithoutBins(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	for _, j := range doc["jobs"].([]any) {
		for _, dir := range []string{"read", "write", "trim"} {
			for _, st := range []string{"slat_ns", "clat_ns", "lat_ns"} {
				delete(j.(map[string]any)[dir].(map[string]any)[st].(map[string]any), "bins")
			}
		}
	}
	plain, err := json.Marshal(doc)
	require.NoError(t, err)
	bs, err := ImportFio(bytes.NewReader(plain), "plain")
	require.NoError(t, err)
	c := bs[0].Dirs[0].Clat
	require.Nil(t, c.Hist)
	require.Equal(t, uint64(138240), c.P99)
	require.Equal(t, uint64(85504), c.P90)
}

// fio prints iops_min/iops_max and bw_min/bw_max as whole units and the
// means with decimals: a max a fraction below its mean is print rounding
// (a run held at 400 IOPS printed iops_max 400, iops_mean 400.08), and
// the samples are kept, so a short run still has them to be judged on;
// a max far below its mean is damage, and they are dropped.
func TestImportFioMomentsRounding(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	require.NoError(t, err)
	edit := func(max, mean float64) []*Baseline {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		for _, j := range doc["jobs"].([]any) {
			d := j.(map[string]any)["read"].(map[string]any)
			d["iops_min"], d["iops_max"], d["iops_mean"], d["iops_samples"] = 399.0, max, mean, 4.0
		}
		edited, err := json.Marshal(doc)
		require.NoError(t, err)
		bs, err := ImportFio(bytes.NewReader(edited), "edited")
		require.NoError(t, err)
		return bs
	}
	m := edit(400, 400.08)[0].Dir("read").IOPSSamples
	require.Equal(t, Moments{N: 4, Min: 399, Max: 400.08, Mean: 400.08, Stddev: m.Stddev}, m)
	require.Zero(t, edit(390, 400.08)[0].Dir("read").IOPSSamples.N, "a max 10 below the mean is no rounding")
}

// An imported fio output is a session of its own: every job of it has
// the session of the fio run that wrote it ("fio-" and its timestamp_ms,
// else its timestamp in ms), two outputs are two sessions, and a
// baseline grown from them counts both.
func TestImportFioSession(t *testing.T) {
	path := filepath.Join("..", "workload", "runner", "testdata", "fio333", "global-null.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var stamp struct {
		Sec int64 `json:"timestamp"`
		Ms  int64 `json:"timestamp_ms"`
	}
	require.NoError(t, json.Unmarshal(data, &stamp))
	require.NotZero(t, stamp.Ms)
	bs := importFile(t, path)
	require.Greater(t, len(bs), 1)
	for _, b := range bs {
		require.Equal(t, fmt.Sprintf("fio-%d", stamp.Ms), b.Session, b.Name)
	}
	require.Equal(t, "fio-1795725525000", FioSession(1795725525, 0), "seconds without timestamp_ms")
	require.Empty(t, FioSession(0, 0))
	require.Empty(t, FioSession(-5, -5000))

	// Another fio run of the same jobs, a second later: another session.
	later := strings.Replace(string(data), fmt.Sprint(stamp.Ms), fmt.Sprint(stamp.Ms+1000), 1)
	bs2, err := ImportFio(strings.NewReader(later), "later.json")
	require.NoError(t, err)
	grown, g, err := Grow(bs[0], bs2[0], DefaultKeep)
	require.NoError(t, err)
	require.Equal(t, []string{bs[0].Session, bs2[0].Session}, g.Sessions)
	require.Len(t, grown.Sessions(), 2)
}
