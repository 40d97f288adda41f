package runner

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// cmdprio_bssplit gives libaio I/Os priorities; each direction's "prios"
// follow "lat_ns" and hold the priorities that completed I/O with their
// clat, adding up to the direction's, as in fio 3.33's recorded
// cmdprio.json of the same job. The log's priority column is 1 for the
// real-time class.
func TestCmdPrioBSSplit(t *testing.T) {
	target := fileTarget(t, 8<<20)
	jobs, err := parseArgs([]string{"--name=p", "--ioengine=libaio", "--direct=1", "--rw=randrw", "--size=4m",
		"--filename=" + target.Path, "--cmdprio_bssplit=4k/25/1/1:4k/75/3/2", "--write_lat_log=" + t.TempDir() + "/p"})
	require.NoError(t, err)
	res, err := Run(context.Background(), jobs[0], workload.Options{})
	require.NoError(t, err)
	require.NoError(t, res.Err())
	var buf strings.Builder
	require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSONPlus, time.Now()))

	type prio struct {
		Class int `json:"prioclass"`
		Level int `json:"prio"`
		Clat  *struct {
			N    uint64            `json:"N"`
			Bins map[string]uint64 `json:"bins"`
		} `json:"clat_ns"`
	}
	read := func(b []byte) (keys []string, prios []prio, n uint64) {
		var doc struct {
			Jobs []struct {
				Read json.RawMessage `json:"read"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(b, &doc))
		r := doc.Jobs[0].Read
		dec := json.NewDecoder(strings.NewReader(string(r)))
		_, _ = dec.Token()
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var skip json.RawMessage
			require.NoError(t, dec.Decode(&skip))
		}
		var d struct {
			Prios []prio `json:"prios"`
			Clat  struct {
				N uint64 `json:"N"`
			} `json:"clat_ns"`
		}
		require.NoError(t, json.Unmarshal(r, &d))
		return keys, d.Prios, d.Clat.N
	}
	want, err := os.ReadFile("testdata/fio333/logs/cmdprio.json")
	require.NoError(t, err)
	wantKeys, wantPrios, _ := read(want)
	gotKeys, gotPrios, n := read([]byte(buf.String()))
	assert.Equal(t, wantKeys, gotKeys, "fio's keys, prios after lat_ns")
	require.Len(t, gotPrios, len(wantPrios))
	var sum uint64
	for i, p := range gotPrios {
		assert.Equal(t, wantPrios[i].Class, p.Class)
		assert.Equal(t, wantPrios[i].Level, p.Level)
		require.NotNil(t, p.Clat)
		assert.NotEmpty(t, p.Clat.Bins, "json+ bins per priority")
		sum += p.Clat.N
	}
	assert.Equal(t, n, sum, "the priorities' I/Os add up to the direction's")

	var rt, other int
	for _, row := range logRows(t, jobs[0].Logs.Lat+"_clat.1.log") {
		if row[4] == 1 {
			rt++
		} else {
			other++
		}
	}
	assert.InDelta(t, 0.25, float64(rt)/float64(rt+other), 0.1, "a quarter of the I/Os are real time")
}
