package iostat

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func snap(up uint64, disks ...DiskStat) Snapshot {
	return Snapshot{Uptime: up, Disks: disks}
}

func disk(name string, s IOStats) DiskStat {
	if s.Fields == 0 {
		s.Fields = FieldsFlush
	}
	return DiskStat{Major: 8, Name: name, IOStats: s}
}

func TestExtByHand(t *testing.T) {
	// Two seconds in which a device completed 1000 reads of 8 KiB (16
	// sectors) taking 2500 ms in all, 250 of them merged, and 500
	// writes of 4 KiB taking 4000 ms, 500 merged; 10 discards of 1 MiB,
	// 4 flushes of 3 ms; busy 1500 ms; 7000 ms weighted in queue.
	prev := IOStats{ReadIOs: 5, ReadTicks: 7, WriteIOs: 9, FlushIOs: 1, IOTicks: 100, TimeInQueue: 100}
	curr := prev
	curr.ReadIOs += 1000
	curr.ReadMerges += 250
	curr.ReadSectors += 16000
	curr.ReadTicks += 2500
	curr.WriteIOs += 500
	curr.WriteMerges += 500
	curr.WriteSectors += 4000
	curr.WriteTicks += 4000
	curr.DiscardIOs += 10
	curr.DiscardSectors += 20480
	curr.DiscardTicks += 50
	curr.FlushIOs += 4
	curr.FlushTicks += 12
	curr.IOTicks += 1500
	curr.TimeInQueue += 7000
	d := NewDelta(snap(1000, disk("sda", prev)), snap(1200, disk("sda", curr)))
	got := d.Disks[0].Ext()
	want := Ext{
		RPerS: 500, WPerS: 250, DPerS: 5, FPerS: 2,
		RkBPerS: 4000, WkBPerS: 1000, DkBPerS: 5120,
		RrqmPerS: 125, WrqmPerS: 250, DrqmPerS: 0,
		RrqmPct: 20, WrqmPct: 50, DrqmPct: 0,
		RAwait: 2.5, WAwait: 8, DAwait: 5, FAwait: 3,
		RareqSz: 8, WareqSz: 4, DareqSz: 1024,
		AquSz: 3.5, Util: 75,
		Svctm: 1500.0 / 1510,
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b := d.Disks[0].Basic()
	wantB := Basic{TPS: 755, KBReadPS: 4000, KBWrtnPS: 1000, KBDscdPS: 5120, KBRead: 8000, KBWrtn: 2000, KBDscd: 10240}
	if diff := cmp.Diff(wantB, b); diff != "" {
		t.Errorf("basic (-want +got):\n%s", diff)
	}
	if d.Interval != 200 {
		t.Errorf("interval %d, want 200 hundredths", d.Interval)
	}
}

func TestDeltaCounterHandling(t *testing.T) {
	base := IOStats{ReadIOs: 1000, ReadSectors: 8000, ReadTicks: 100, WriteIOs: 500, WriteSectors: 4000, IOTicks: 50, Fields: FieldsFlush}
	tests := []struct {
		name      string
		prev      []DiskStat
		curr      IOStats
		wantDiff  IOStats
		wantNotes []NoteKind
		wantNew   bool
		wantReset bool
	}{
		{
			name:      "32-bit tick wrap",
			prev:      []DiskStat{disk("sda", IOStats{ReadIOs: 1, ReadTicks: math.MaxUint32 - 9, IOTicks: math.MaxUint32, TimeInQueue: math.MaxUint32 - 1, Fields: FieldsFlush})},
			curr:      IOStats{ReadIOs: 3, ReadTicks: 10, IOTicks: 4, TimeInQueue: 20, Fields: FieldsFlush},
			wantDiff:  IOStats{ReadIOs: 2, ReadTicks: 20, IOTicks: 5, TimeInQueue: 22, Fields: FieldsFlush},
			wantNotes: []NoteKind{NoteTickWrap, NoteTickWrap, NoteTickWrap},
		},
		{
			name:     "ticks printed past 32 bits are taken modulo 2^32",
			prev:     []DiskStat{disk("sda", IOStats{ReadIOs: 1, ReadTicks: 1<<32 + 5, Fields: FieldsFlush})},
			curr:     IOStats{ReadIOs: 2, ReadTicks: 1<<32 + 9, Fields: FieldsFlush},
			wantDiff: IOStats{ReadIOs: 1, ReadTicks: 4, Fields: FieldsFlush},
		},
		{
			name:      "reset device counted from zero",
			prev:      []DiskStat{disk("sda", base)},
			curr:      IOStats{ReadIOs: 10, ReadSectors: 80, ReadTicks: 3, WriteIOs: 2, WriteSectors: 16, IOTicks: 4, Fields: FieldsFlush},
			wantDiff:  IOStats{ReadIOs: 10, ReadSectors: 80, ReadTicks: 3, WriteIOs: 2, WriteSectors: 16, IOTicks: 4, Fields: FieldsFlush},
			wantNotes: []NoteKind{NoteReset},
			wantReset: true,
		},
		{
			name:      "fewer I/Os but more sectors is not a reset",
			prev:      []DiskStat{disk("sda", base)},
			curr:      IOStats{ReadIOs: 10, ReadSectors: 8800, ReadTicks: 110, WriteIOs: 502, WriteSectors: 4016, IOTicks: 60, Fields: FieldsFlush},
			wantDiff:  IOStats{ReadIOs: math.MaxUint64 - 989, ReadSectors: 800, ReadTicks: 10, WriteIOs: 2, WriteSectors: 16, IOTicks: 10, Fields: FieldsFlush},
			wantNotes: []NoteKind{NoteBackwards},
		},
		{
			name:      "new device counted from zero",
			prev:      nil,
			curr:      base,
			wantDiff:  base,
			wantNotes: []NoteKind{NoteNew},
			wantNew:   true,
		},
		{
			name:      "busy without completions",
			prev:      []DiskStat{disk("sda", base)},
			curr:      func() IOStats { s := base; s.IOTicks += 1300; s.IOsInProgress = 2; return s }(),
			wantDiff:  IOStats{IOTicks: 1300, IOsInProgress: 2, Fields: FieldsFlush},
			wantNotes: []NoteKind{NoteUtilOver100, NoteBusyNoIO},
		},
		{
			name:      "18-field kernel has no flush counters",
			prev:      []DiskStat{disk("sda", IOStats{ReadIOs: 1, Fields: FieldsDiscard})},
			curr:      IOStats{ReadIOs: 2, Fields: FieldsDiscard},
			wantDiff:  IOStats{ReadIOs: 1, Fields: FieldsDiscard},
			wantNotes: []NoteKind{NoteNoFlush},
		},
		{
			name:      "14-field kernel has no discard counters",
			prev:      []DiskStat{disk("sda", IOStats{ReadIOs: 1, Fields: FieldsBasic})},
			curr:      IOStats{ReadIOs: 2, Fields: FieldsBasic},
			wantDiff:  IOStats{ReadIOs: 1, Fields: FieldsBasic},
			wantNotes: []NoteKind{NoteNoDiscard},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One second: 100 hundredths.
			d := NewDelta(snap(500, tc.prev...), snap(600, disk("sda", tc.curr)))
			dd := d.Disks[0]
			if diff := cmp.Diff(tc.wantDiff, dd.Diff); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			var kinds []NoteKind
			for _, n := range dd.Notes {
				kinds = append(kinds, n.Kind)
			}
			if diff := cmp.Diff(tc.wantNotes, kinds); diff != "" {
				t.Errorf("notes %v (-want +got):\n%s", dd.Notes, diff)
			}
			if dd.New != tc.wantNew || dd.Reset != tc.wantReset {
				t.Errorf("New %v Reset %v, want %v %v", dd.New, dd.Reset, tc.wantNew, tc.wantReset)
			}
		})
	}
}

func TestDeltaDevicesAndOrder(t *testing.T) {
	a := snap(100, disk("sda", IOStats{ReadIOs: 1}), disk("sdb", IOStats{ReadIOs: 1}))
	b := snap(200, disk("loop1", IOStats{ReadIOs: 3}), disk("sda", IOStats{ReadIOs: 2}))
	d := NewDelta(a, b)
	var names []string
	for _, dd := range d.Disks {
		names = append(names, dd.Name)
	}
	if diff := cmp.Diff([]string{"loop1", "sda"}, names); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	if dd, ok := d.Disk("loop1"); !ok || !dd.New || dd.Ext().RPerS != 3 {
		t.Errorf("loop1: %+v", dd)
	}
	if _, ok := d.Disk("sdb"); ok {
		t.Error("a device gone from the later snapshot is listed")
	}
}

func TestDeltaInterval(t *testing.T) {
	a := snap(0, disk("sda", IOStats{ReadIOs: 10}))
	b := snap(0, disk("sda", IOStats{ReadIOs: 310}))
	d, err := NewDeltaInterval(a, b, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if d.Interval != 150 || d.Disks[0].Ext().RPerS != 200 {
		t.Errorf("interval %d r/s %v, want 150 and 200", d.Interval, d.Disks[0].Ext().RPerS)
	}
	if _, err := NewDeltaInterval(a, b, 0); err == nil {
		t.Error("zero interval accepted")
	}
	// Equal uptimes: sysstat's guard makes the interval one hundredth.
	d = NewDelta(snap(700, disk("sda", IOStats{})), snap(700, disk("sda", IOStats{ReadIOs: 1})))
	if d.Interval != 1 {
		t.Errorf("equal uptimes: interval %d", d.Interval)
	}
	// Uptime backwards: the interval wraps as sysstat's unsigned one
	// does, so the rates read 0.00 as iostat prints them, with a note.
	d = NewDelta(snap(700, disk("sda", IOStats{ReadIOs: 1})), snap(600, disk("sda", IOStats{ReadIOs: 500, IOTicks: 900})))
	sda, _ := d.Disk("sda")
	if e := sda.Ext(); e.RPerS > 0.005 || e.Util > 0.005 {
		t.Errorf("uptime backwards: r/s %v %%util %v, want 0.00 as sysstat prints them", e.RPerS, e.Util)
	}
	if len(d.Notes) != 1 || d.Notes[0].Kind != NoteUptimeBackwards {
		t.Errorf("uptime backwards: notes %v, want one uptime-backwards", d.Notes)
	}
}

func TestDeltaIntervalSkew(t *testing.T) {
	t0 := time.Now()
	a := Snapshot{Time: t0, Uptime: 1000}
	b := Snapshot{Time: t0.Add(time.Second), Uptime: 1200} // uptime says 2 s
	d := NewDelta(a, b)
	if len(d.Notes) != 1 || d.Notes[0].Kind != NoteIntervalSkew {
		t.Errorf("notes %v, want one interval-skew", d.Notes)
	}
	b.Uptime = 1101 // 10 ms off: within the uptime's resolution
	if d = NewDelta(a, b); len(d.Notes) != 0 {
		t.Errorf("notes %v, want none", d.Notes)
	}
}

func TestFixturePairNotes(t *testing.T) {
	tests := []struct {
		pair, disk string
		want       NoteKind
	}{
		{"tickwrap", "sda", NoteTickWrap},
		{"reset", "sda", NoteReset},
		{"newdev", "loop1", NoteNew},
		{"backwards", "sda", NoteBackwards},
		{"idle", "sda", NoteBusyNoIO},
		{"idle", "sda", NoteUtilOver100},
		{"idle", "sda", NoteNoFlush},
	}
	for _, tc := range tests {
		t.Run(tc.pair+"/"+tc.want.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", "pairs", tc.pair)
			a := readFixtureSnapshot(t, filepath.Join(dir, "diskstats.a"), filepath.Join(dir, "uptime.a"))
			b := readFixtureSnapshot(t, filepath.Join(dir, "diskstats.b"), filepath.Join(dir, "uptime.b"))
			d := NewDelta(a, b)
			dd, ok := d.Disk(tc.disk)
			if !ok {
				t.Fatalf("no %s", tc.disk)
			}
			if !dd.HasNote(tc.want) {
				t.Errorf("notes %v lack %v", dd.Notes, tc.want)
			}
		})
	}
}

func TestNoteKindString(t *testing.T) {
	if got := NoteUtilOver100.String(); got != "util-over-100" {
		t.Errorf("got %q", got)
	}
	if got := NoteKind(99).String(); got != "NoteKind(99)" {
		t.Errorf("got %q", got)
	}
	if got := (Note{NoteReset, "x"}).String(); got != "reset: x" {
		t.Errorf("got %q", got)
	}
}

func TestExtAllocs(t *testing.T) {
	d := NewDelta(snap(100, disk("sda", IOStats{ReadIOs: 1})), snap(200, disk("sda", IOStats{ReadIOs: 9, IOTicks: 5})))
	dd := d.Disks[0]
	var sink float64
	if n := testing.AllocsPerRun(100, func() { sink += dd.Ext().Util + dd.Basic().TPS }); n != 0 {
		t.Errorf("Ext and Basic allocate %v times", n)
	}
	_ = sink
}

func TestDeltaFromBoot(t *testing.T) {
	d := NewDelta(Zero, snap(12345, disk("sda", IOStats{ReadIOs: 12345})))
	dd := d.Disks[0]
	if !dd.New || dd.HasNote(NoteNew) || dd.Ext().RPerS != 100 {
		t.Errorf("from boot: New %v notes %v r/s %v; want new, no note, 100 r/s", dd.New, dd.Notes, dd.Ext().RPerS)
	}
}
