package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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

// cmdprio_bssplit with several entries, in fio 3.33's
// bs/percent/class/level form and in the older bs/percent form (each
// entry then takes cmdprio_class and cmdprio; here with the job's own
// priority from prioclass and prio), on the same libaio job under fio
// 3.33 and stortest: "prios" lists the same priorities in the same order
// (the job's own first, then the entries' by block size); in the per-I/O
// clat logs (log_prio=1: the whole ioprio value) every I/O of a block
// size has the job's own priority or its entry's, and each entry's share
// of its block size's I/Os is its percentage, for both tools; I/Os of
// other sizes keep the job's own priority.
func TestCmdPrioBSSplitMatchesFio(t *testing.T) {
	fio := fioBinary(t)
	target := fileTarget(t, 32<<20)
	rt := func(class, level int64) int64 { return class<<13 | level }
	for _, tc := range []struct {
		name, opts string
		want       [][2]int // "prios": class, level
		share      map[int64]map[int64]float64
	}{
		{"class/level", "cmdprio_bssplit=4k/20/3/0:64k/50/1/5\n", [][2]int{{0, 0}, {3, 0}, {1, 5}},
			map[int64]map[int64]float64{4096: {rt(3, 0): 0.2, 0: 0.8}, 65536: {rt(1, 5): 0.5, 0: 0.5}}},
		{"bs/percent", "cmdprio_bssplit=64k/60:4k/30\ncmdprio_class=2\ncmdprio=3\nprioclass=2\nprio=6\n", [][2]int{{2, 6}, {2, 3}},
			map[int64]map[int64]float64{4096: {rt(2, 3): 0.3, rt(2, 6): 0.7}, 65536: {rt(2, 3): 0.6, rt(2, 6): 0.4}}},
		{"two levels in one size", "cmdprio_bssplit=64k/30/1/1:64k/40/3/0:4k/50/1/1\n", [][2]int{{0, 0}, {1, 1}, {3, 0}},
			map[int64]map[int64]float64{4096: {rt(1, 1): 0.5, 0: 0.5}, 65536: {rt(1, 1): 0.3, rt(3, 0): 0.4, 0: 0.3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			text := func(log string) string {
				return "[p]\nioengine=libaio\ndirect=1\nrw=randread\niodepth=4\nsize=32m\nbssplit=4k/50:64k/50\nfilename=" + target.Path +
					"\nlog_prio=1\nwrite_lat_log=" + filepath.Join(dir, log) + "\n" + tc.opts
			}
			prios := func(doc map[string]any) (out [][2]int) {
				list, _ := at(doc, "jobs", "0", "read", "prios").([]any)
				for _, p := range list {
					m := p.(map[string]any)
					out = append(out, [2]int{int(m["prioclass"].(float64)), int(m["prio"].(float64))})
				}
				return out
			}
			shares := func(log string) map[int64]map[int64]float64 {
				count := map[int64]map[int64]float64{}
				b, err := os.ReadFile(filepath.Join(dir, log+"_clat.1.log"))
				require.NoError(t, err)
				for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					f := strings.Split(line, ", ")
					require.Len(t, f, 5, "%s: %q", log, line)
					bs, err := strconv.ParseInt(f[3], 10, 64)
					require.NoError(t, err)
					prio, err := strconv.ParseInt(f[4], 0, 64) // log_prio=1: fio writes it in hex
					require.NoError(t, err)
					if count[bs] == nil {
						count[bs] = map[int64]float64{}
					}
					count[bs][prio]++
				}
				for _, m := range count {
					var n float64
					for _, c := range m {
						n += c
					}
					for p := range m {
						m[p] /= n
					}
				}
				return count
			}
			check := func(who string, got map[int64]map[int64]float64) {
				for bs, want := range tc.share {
					require.Len(t, got[bs], len(want), "%s: the priorities of %d-byte I/Os: %v", who, bs, got[bs])
					for p, share := range want {
						assert.InDelta(t, share, got[bs][p], 0.1, "%s: share of priority %#x among %d-byte I/Os", who, p, bs)
					}
				}
				// The random map's last blocks are shorter (under both
				// tools): no entry names their sizes, so they keep the
				// job's own priority.
				own := rt(int64(tc.want[0][0]), int64(tc.want[0][1]))
				for bs, m := range got {
					if tc.share[bs] == nil {
						assert.Equal(t, map[int64]float64{own: 1}, m, "%s: %d-byte I/Os", who, bs)
					}
				}
			}

			fdoc := fioJSON(t, fio, text("fio"))
			assert.Equal(t, tc.want, prios(fdoc), "fio 3.33's prios")
			check("fio", shares("fio"))

			res := runJobFile(t, text("st"))
			var buf strings.Builder
			require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSON, time.Now()))
			assert.Equal(t, tc.want, prios(jsonDoc(t, []byte(buf.String()))), "stortest's prios")
			check("stortest", shares("st"))
		})
	}
}
