package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/history"
)

// baseline diff --fleet over hosts' baseline trees and over hosts'
// histories (the newest run of each job standing for the host) names the
// slow host, exits 1, and gives the fleet's merged percentiles.
func TestBaselineDiffFleet(t *testing.T) {
	perSec := map[string]int{"node1": 2000, "node2": 2040, "node3": 700, "node4": 1980}
	trees, hists := t.TempDir(), t.TempDir()
	tmp := t.TempDir()
	for host, n := range perSec {
		synthBaseline(t, baselines.Path(filepath.Join(trees, host), "TestRead", "randread-4k"), n, 1)
		// The history: an old run at full speed, then the current one.
		for i, rate := range []int{2000, n} {
			p := filepath.Join(tmp, fmt.Sprintf("%s-%d.json", host, i))
			synthBaseline(t, p, rate, 1)
			b, err := baselines.Load(p)
			require.NoError(t, err)
			b.Created = time.Date(2026, 11, 1+i, 3, 0, 0, 0, time.UTC)
			b.Fingerprint.Hostname = host
			_, err = history.Append(filepath.Join(hists, host), "TestRead", b)
			require.NoError(t, err)
		}
	}
	for name, dir := range map[string]string{"baselines": trees, "histories": hists} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := run(t, "baseline", "diff", "--fleet", dir)
			require.Equal(t, 1, code, "%s\n%s", out, errOut)
			assert.Regexp(t, `slow host\(s\), against the other hosts: node3 \(read (iops|bw) `, out)
			assert.Contains(t, out, "fleet TestRead/randread-4k: 4 hosts")
			assert.Contains(t, errOut, "1 of 4 job(s) regressed")

			code, out, _ = run(t, "baseline", "diff", "--fleet", "--format", "json", dir)
			require.Equal(t, 1, code)
			var rep struct {
				Hosts []string
				Jobs  []struct {
					Hosts []struct{ Name, Verdict string }
					Dirs  []struct{ IOPS float64 }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
			require.Len(t, rep.Jobs, 1)
			for _, h := range rep.Jobs[0].Hosts {
				if h.Name == "TestRead/randread-4k@node3" {
					assert.Equal(t, "regression", h.Verdict)
				} else {
					assert.NotEqual(t, "regression", h.Verdict, h.Name)
				}
			}
			assert.InDelta(t, 2000+2040+700+1980, rep.Jobs[0].Dirs[0].IOPS, 60, "the fleet's IOPS: the newest runs summed")
		})
	}
	code, _, errOut := run(t, "baseline", "diff", "--fleet", filepath.Join(trees, "node1"))
	assert.Equal(t, 2, code, "one host is no fleet: %s", errOut)
}
