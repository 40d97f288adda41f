package iostat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseCPUStat(t *testing.T) {
	tests := []struct {
		name, in string
		want     CPUStats
	}{
		{"linux 6", "cpu  10 1 5 100 7 2 3 4 9 8\ncpu0 10 1 5 100 7 2 3 4 9 8\n",
			CPUStats{User: 10, Nice: 1, System: 5, Idle: 100, IOWait: 7, IRQ: 2, SoftIRQ: 3, Steal: 4, Guest: 9, GuestNice: 8, Fields: 10}},
		{"seven fields (2.6.10)", "cpu  10 1 5 100 7 2 3\n", CPUStats{User: 10, Nice: 1, System: 5, Idle: 100, IOWait: 7, IRQ: 2, SoftIRQ: 3, Fields: 7}},
		{"a newer kernel's field", "cpu 1 2 3 4 5 6 7 8 9 10 11\n", CPUStats{User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8, Guest: 9, GuestNice: 10, Fields: 10}},
		{"cpu line after others", "intr 1 2\ncpu0 9 9 9 9\ncpu 1 0 0 3\n", CPUStats{User: 1, Idle: 3, Fields: 4}},
		{"a word among the numbers", "cpu 1 2 x 4\n", CPUStats{User: 1, Nice: 2, Fields: 2}},
		{"no cpu line", "intr 1 2\n", CPUStats{}},
		{"empty", "", CPUStats{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCPUStat(strings.NewReader(tc.in), "stat")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewAvgCPU(t *testing.T) {
	prev := CPUStats{User: 100, Nice: 10, System: 50, Idle: 800, IOWait: 20, IRQ: 5, SoftIRQ: 5, Steal: 10, Guest: 7}
	curr := CPUStats{User: 150, Nice: 10, System: 70, Idle: 900, IOWait: 40, IRQ: 5, SoftIRQ: 5, Steal: 10, Guest: 30}
	// 190 ticks: 50 user, 20 system, 100 idle, 20 iowait. The 23 guest
	// ticks are not added again: User holds them already.
	got := NewAvgCPU(prev, curr)
	want := AvgCPU{User: 26.31578947368421, System: 10.526315789473683, IOWait: 10.526315789473683, Idle: 52.63157894736842}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Idle ticks going backwards read 0, as in sysstat; so does
	// everything when the total does (the interval wraps).
	back := curr
	back.Idle = 700
	if c := NewAvgCPU(curr, back); c != (AvgCPU{}) {
		t.Errorf("total backwards: %+v, want all zero", c)
	}
	if c := NewAvgCPU(curr, curr); c != (AvgCPU{}) {
		t.Errorf("no tick: %+v, want all zero", c)
	}
	if c := NewAvgCPU(CPUStats{}, curr); c.Idle < 75 || c.Idle > 76 {
		t.Errorf("since boot: idle %v", c.Idle)
	}
}

// TestDeltaCPU: snapshots read /proc/stat with the counters, so a delta
// says how busy the CPUs were, and its reports print avg-cpu above the
// devices as iostat does.
func TestDeltaCPU(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("uptime", "100.00 150.00\n")
	write("stat", "cpu  100 0 50 800 50 0 0 0 0 0\n")
	f := dirFS(t, dir)
	a := snapshotOf(t, f, NoDevices)
	write("uptime", "101.00 151.00\n")
	write("stat", "cpu  190 0 60 800 150 0 0 0 0 0\n")
	b := snapshotOf(t, f, NoDevices)
	d := NewDelta(a, b)
	if d.CPU == nil || d.CPU.User != 45 || d.CPU.IOWait != 50 || len(d.Disks) != 0 {
		t.Fatalf("CPU %+v, disks %v: want 45%% user, 50%% iowait, no device", d.CPU, d.Disks)
	}
	if NewDelta(Zero, b).CPU == nil {
		t.Error("since boot: no CPU figures")
	}
	if NewDelta(Snapshot{Uptime: 50}, b).CPU != nil {
		t.Error("from a snapshot without /proc/stat: CPU figures")
	}
	var txt, js bytes.Buffer
	if err := NewTextWriter(&txt, testHost, ReportOptions{Extended: true}).Write(d, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), cpuHeader+"\n          45.00    0.00    5.00   50.00    0.00    0.00\n\nDevice") {
		t.Errorf("text report:\n%s", txt.String())
	}
	jw := NewJSONWriter(&js, testHost, ReportOptions{})
	if err := jw.Write(d, time.Time{}); err != nil {
		t.Fatal(err)
	}
	jw.Close()
	if !strings.Contains(js.String(), `"avg-cpu":  {"user": 45.00, "nice": 0.00, "system": 5.00, "iowait": 50.00, "steal": 0.00, "idle": 0.00},`+"\n\t\t\t\t\t\"disk\": [") {
		t.Errorf("JSON report:\n%s", js.String())
	}
}
