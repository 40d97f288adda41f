package iostat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// monitorFixture is a proc and sys tree whose files a test rewrites
// between samples.
type monitorFixture struct {
	t   *testing.T
	dir string
	fs  FS
}

func newMonitorFixture(t *testing.T) *monitorFixture {
	t.Helper()
	dir := t.TempDir()
	f := dirFS(t, dir)
	return &monitorFixture{t: t, dir: dir, fs: f.WithDev(filepath.Join(dir, "dev"))}
}

func (m *monitorFixture) write(rel, text string) {
	m.t.Helper()
	p := filepath.Join(m.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// sample writes the uptime (in seconds) and diskstats lines "NAME
// READS" (the other counters follow the reads), then takes a sample.
func (m *monitorFixture) sample(mon *Monitor, uptime int, disks ...string) Report {
	m.t.Helper()
	m.write("uptime", fmt.Sprintf("%d.00 0.00\n", uptime))
	var b strings.Builder
	for i, d := range disks {
		var name string
		var reads uint64
		fmt.Sscan(d, &name, &reads)
		fmt.Fprintf(&b, "8 %d %s %d 0 %d 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", 16*i, name, reads, 8*reads)
	}
	m.write("diskstats", b.String())
	r, err := mon.Sample()
	if err != nil {
		m.t.Fatal(err)
	}
	return r
}

func rowNames(r Report) []string {
	var out []string
	for _, row := range r.Disks {
		out = append(out, fmt.Sprintf("%s %d", row.Name, row.Diff.ReadIOs))
	}
	return out
}

// TestMonitorDiskstatsOrder: with -p ALL devices are listed in the file's
// order of their first appearance, new ones last; one that goes away is
// left out and, back, keeps its place and is compared with the last
// counters of the other slot, as sysstat's two slots do.
func TestMonitorDiskstatsOrder(t *testing.T) {
	m := newMonitorFixture(t)
	mon, err := m.fs.NewMonitor(MonitorConfig{AllPartitions: true, ShowIdle: true})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		uptime int
		disks  []string
		want   []string
	}{
		{100, []string{"sdb 10", "sda 20"}, []string{"sdb 10", "sda 20"}},
		{101, []string{"sdc 5", "sda 25", "sdb 11"}, []string{"sdb 1", "sda 5", "sdc 5"}},
		{102, []string{"sda 30", "sdc 6"}, []string{"sda 5", "sdc 1"}},
		// sdb is back: compared with the counters in the other of
		// sysstat's two slots, those of sample 0.
		{103, []string{"sda 31", "sdb 15", "sdc 7"}, []string{"sdb 5", "sda 1", "sdc 1"}},
	}
	for i, s := range steps {
		r := m.sample(mon, s.uptime, s.disks...)
		if diff := cmp.Diff(s.want, rowNames(r)); diff != "" {
			t.Errorf("sample %d: devices and reads (-want +got):\n%s", i, diff)
		}
	}
	// The uptime going back: 0.00 rates and a note, and on it goes.
	r := m.sample(mon, 50, "sda 40", "sdb 16", "sdc 8")
	if len(r.Notes) != 1 || r.Notes[0].Kind != NoteUptimeBackwards || r.Disks[0].Ext().RPerS > 0.005 {
		t.Errorf("uptime backwards: notes %v, rows %v", r.Notes, rowNames(r))
	}
}

// TestMonitorNamed: named devices are listed in name order, whatever the
// order given; a partition is found through its device numbers (here its
// sysfs "dev" file, as no device node can be made without root); a name
// that is no device, or one that went away, is left out with a note.
func TestMonitorNamed(t *testing.T) {
	m := newMonitorFixture(t)
	m.write("uptime", "100.00 0.00\n")
	m.write("block/sdb/stat", "7 0 56 0 0 0 0 0 0 0 0\n")
	m.write("block/sda/stat", "3 0 24 0 0 0 0 0 0 0 0\n")
	m.write("block/sda/sda2/stat", "2 0 16 0 0 0 0 0 0 0 0\n")
	m.write("class/block/sda2/dev", "8:2\n")
	m.write("dev/block/8:2/stat", "2 0 16 0 0 0 0 0 0 0 0\n")
	mon, err := m.fs.NewMonitor(MonitorConfig{Items: []Item{{Name: "sdb"}, {Name: "nosuch"}, {Name: "sda2"}, {Name: "sda"}}, ShowIdle: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := mon.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sda 3", "sda2 2", "sdb 7"}, rowNames(r)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if len(r.Notes) != 1 || r.Notes[0].Kind != NoteMissing || !strings.Contains(r.Notes[0].Text, "nosuch") {
		t.Errorf("notes %v, want one for nosuch", r.Notes)
	}
	os.RemoveAll(filepath.Join(m.dir, "block", "sdb"))
	m.write("uptime", "101.00 0.00\n")
	if r, err = mon.Sample(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sda 0", "sda2 0"}, rowNames(r)); diff != "" {
		t.Errorf("sdb gone: rows (-want +got):\n%s", diff)
	}
}

// TestMonitorGroups: a group sums its devices, and sysstat 12.6 divides
// its %util by the devices counted over every sample so far.
func TestMonitorGroups(t *testing.T) {
	m := newMonitorFixture(t)
	m.write("uptime", "100.00 0.00\n")
	m.write("block/sda/stat", "10 0 80 0 0 0 0 0 0 100 0\n")
	m.write("block/sdb/stat", "20 0 160 0 0 0 0 0 0 300 0\n")
	mon, err := m.fs.NewMonitor(MonitorConfig{Items: []Item{{Group: "all"}, {Name: "sdb"}, {Name: "sda"}}, ShowIdle: true, GroupsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := mon.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Disks) != 1 || r.Disks[0].Name != " all" || r.Disks[0].Diff.ReadIOs != 30 || r.Disks[0].Members != 2 {
		t.Fatalf("rows %+v, want the group only, 30 reads of 2 devices", r.Disks)
	}
	m.write("uptime", "101.00 0.00\n")
	m.write("block/sda/stat", "10 0 80 0 0 0 0 0 0 600 0\n")
	m.write("block/sdb/stat", "20 0 160 0 0 0 0 0 0 900 0\n")
	if r, err = mon.Sample(); err != nil {
		t.Fatal(err)
	}
	// 1100 ms busy in 1 s over 4 devices counted so far: 27.5%.
	if g := r.Disks[0]; g.Members != 4 || g.Ext().Util != 27.5 {
		t.Errorf("group: members %d, %%util %v; want 4 and 27.5 as sysstat 12.6 prints", g.Members, g.Ext().Util)
	}
}

// TestMonitorSlashNames reads sysstat's sample root6, whose cciss/c0d0
// sysfs writes "cciss!c0d0": named with -p, the device and its
// partitions are listed (12.6 looks for /sys/block/cciss/c0d0 and lists
// nothing); a partition named alone is found by the link of its numbers
// under /sys/dev/block when there is no device node to give them.
func TestMonitorSlashNames(t *testing.T) {
	root := filepath.Join("testdata", "sysstat", "root6")
	f, err := NewFS(filepath.Join(root, "proc"), filepath.Join(root, "sys"))
	if err != nil {
		t.Fatal(err)
	}
	f = f.WithDev(t.TempDir())
	for _, tc := range []struct {
		items []Item
		want  []string
	}{
		{[]Item{{Name: "cciss/c0d0", Partitions: true}}, []string{"cciss/c0d0 35817", "cciss/c0d0p1 5817", "cciss/c0d0p2 30000"}},
		{[]Item{{Name: "cciss/c0d0p2"}, {Name: "xvdp"}}, []string{"cciss/c0d0p2 30000", "xvdp 82"}},
	} {
		mon, err := f.NewMonitor(MonitorConfig{Items: tc.items, ShowIdle: true})
		if err != nil {
			t.Fatal(err)
		}
		r, err := mon.Sample()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range r.Disks {
			got = append(got, fmt.Sprintf("%s %d", row.Name, row.Diff.ReadIOs))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%+v: rows and reads (-want +got):\n%s", tc.items, diff)
		}
	}
}
