package fioout

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/iostat"
	"stortest.dev/workload"
)

// disk_util holds fio's keys in fio's order (as in a recorded fio 3.33
// output), from the device's counters over the run: in_queue is the sum
// of the ticks, as fio 3.33 prints it, and util the busy share of the
// elapsed time. The summary ends with fio's "Disk stats" lines.
func TestDiskUtil(t *testing.T) {
	d := iostat.DiskDelta{Name: "vda", Diff: iostat.IOStats{ReadIOs: 2699, WriteIOs: 1943, ReadMerges: 1, WriteMerges: 2,
		ReadTicks: 755, WriteTicks: 14403, IOTicks: 3511, TimeInQueue: 99999}}
	u := workload.DiskUtilOf(d, 4*time.Second)
	assert.Equal(t, workload.DiskUtil{Name: "vda", ReadIOs: 2699, WriteIOs: 1943, ReadMerges: 1, WriteMerges: 2,
		ReadTicks: 755, WriteTicks: 14403, InQueue: 15158, Util: 87.775}, u)
	assert.Equal(t, 100.0, workload.DiskUtilOf(d, time.Second).Util, "at most 100%")

	r := &workload.Result{DiskUtil: []workload.DiskUtil{u}}
	var buf bytes.Buffer
	require.NoError(t, WriteFioJSON(&buf, r, FormatJSON, time.Unix(1700000000, 0)))
	keys := func(b []byte) []string {
		t.Helper()
		var doc struct {
			DiskUtil []json.RawMessage `json:"disk_util"`
		}
		require.NoError(t, json.Unmarshal(b[bytes.IndexByte(b, '{'):], &doc))
		require.Len(t, doc.DiskUtil, 1)
		dec := json.NewDecoder(bytes.NewReader(doc.DiskUtil[0]))
		var ks []string
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok && dec.More() {
				ks = append(ks, s)
				_, _ = dec.Token() // the value
			}
		}
		return ks
	}
	fio, err := os.ReadFile("../../testdata/fio/two-jobs.json")
	require.NoError(t, err)
	assert.Equal(t, keys(fio), keys(buf.Bytes()))
	assert.Contains(t, buf.String(), `"util": 87.775000`)

	var sum strings.Builder
	require.NoError(t, WriteSummary(&sum, r))
	assert.Contains(t, sum.String(), "\nDisk stats (read/write):\n  vda: ios=2699/1943, merge=1/2, ticks=755/14403, in_queue=15158, util=87.78%\n")
}
