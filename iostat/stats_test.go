package iostat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFixture(t *testing.T, name string) []DiskStat {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, notes, err := ParseDiskstats(f, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) > 0 {
		t.Fatalf("%s: notes %v", name, notes)
	}
	return ds
}

func TestParseDiskstatsKernels(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		devices int
		want    DiskStat // one line checked field by field
	}{
		{"20 fields (5.5+)", "pairs/steady/diskstats.a", 4, DiskStat{Major: 259, Minor: 0, Name: "nvme0n1", IOStats: IOStats{
			ReadIOs: 88123456, ReadMerges: 1234, ReadSectors: 7050000000, ReadTicks: 31000000,
			WriteIOs: 45000000, WriteMerges: 3400000, WriteSectors: 9000000000, WriteTicks: 95000000,
			IOsInProgress: 12, IOTicks: 20000000, TimeInQueue: 126000000,
			DiscardIOs: 9000, DiscardMerges: 17, DiscardSectors: 71000000, DiscardTicks: 4000,
			FlushIOs: 550000, FlushTicks: 12000, Fields: 17}}},
		{"18 fields (4.18-5.4)", "k18/diskstats", 7, DiskStat{Major: 8, Minor: 2, Name: "sda2", IOStats: IOStats{
			ReadIOs: 500, ReadMerges: 56, ReadSectors: 5432, ReadTicks: 89,
			WriteIOs: 78, WriteMerges: 78, WriteSectors: 789, WriteTicks: 43,
			IOTicks: 67, TimeInQueue: 132, Fields: 15}}},
		{"14 fields (before 4.18)", "k14/diskstats", 5, DiskStat{Major: 253, Minor: 0, Name: "dm-0", IOStats: IOStats{
			ReadIOs: 430000, ReadSectors: 18200000, ReadTicks: 402000,
			WriteIOs: 2140000, WriteSectors: 34600000, WriteTicks: 30300000,
			IOsInProgress: 1, IOTicks: 1100000, TimeInQueue: 30702000, Fields: 11}}},
		{"7 fields (old partition)", "k7/diskstats", 3, DiskStat{Major: 3, Minor: 1, Name: "hda1", IOStats: IOStats{
			ReadIOs: 35486, ReadSectors: 38030, WriteIOs: 38030, WriteSectors: 38030, Fields: 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := parseFixture(t, tc.file)
			if len(ds) != tc.devices {
				t.Fatalf("got %d devices, want %d", len(ds), tc.devices)
			}
			var got DiskStat
			for _, d := range ds {
				if d.Name == tc.want.Name {
					got = d
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.want.Name, diff)
			}
		})
	}
}

func TestParseDiskstatsPartitionsAndFlags(t *testing.T) {
	ds := parseFixture(t, "k18/diskstats")
	var names []string
	for _, d := range ds {
		names = append(names, d.Name)
		if !d.HasDiscard() || d.HasFlush() {
			t.Errorf("%s: HasDiscard %v HasFlush %v, want true false on an 18-field kernel", d.Name, d.HasDiscard(), d.HasFlush())
		}
	}
	want := []string{"sda", "sda1", "sda2", "nvme0n1", "nvme0n1p1", "dm-0", "loop0"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names in file order (-want +got):\n%s", diff)
	}
}

func TestParseDiskstatsThisKernel(t *testing.T) {
	f, err := os.Open("/proc/diskstats")
	if err != nil {
		t.Skipf("no /proc/diskstats: %v", err)
	}
	defer f.Close()
	ds, notes, err := ParseDiskstats(f, "/proc/diskstats")
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	if len(ds) == 0 {
		t.Fatal("no devices")
	}
	for _, d := range ds {
		if d.Fields < FieldsBasic {
			t.Errorf("%s: %d fields", d.Name, d.Fields)
		}
	}
}

func TestParseDiskstatsSkipsWithNotes(t *testing.T) {
	good := "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	tests := []struct {
		name, input string
		devices     int
		wantNote    string // substring of the one note; "" for none
	}{
		{"too few fields", good + "   8 1 sda1 1 2 3\n", 1, "t line 2: 6 fields, want 14 or more"},
		{"letters before the basic counters end", "8 0 sda 1 2 3 4 5 x 7 8 9 10 11\n", 0, `t line 1: field 9 (WriteMerges) "x": not an unsigned number`},
		{"negative counter", "8 0 sda 1 2 -3 4 5 6 7 8 9 10 11\n", 0, `field 6 (ReadSectors) "-3"`},
		{"major not a number", "a 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", 0, `field 1 (major) "a"`},
		{"minor past 32 bits", "8 4294967296 sda 1 2 3 4 5 6 7 8 9 10 11\n", 0, "field 2 (minor)"},
		{"old partition with a bad counter", "3 1 hda1 1 2 z 4\n", 0, `field 6 (WriteIOs) "z"`},
		{"two fields", "8 0\n", 0, "2 fields"},
		{"overlong line", good + strings.Repeat("1 ", maxLineBytes) + "\n" + good, 2, "t line 2: longer than 65536 bytes"},
		// Lines sysstat reads, and so does this package.
		{"17 fields", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n", 1, ""},
		{"15 fields", good + "8 0 sdb 1 2 3 4 5 6 7 8 9 10 11 12\n", 2, ""},
		{"letters after the basic counters", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 x 13\n", 1, ""},
		{"counter past 2^64", "8 0 sda 18446744073709551616 2 3 4 5 6 7 8 9 10 11\n", 1, ""},
		{"no final newline", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11", 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, notes, err := ParseDiskstats(strings.NewReader(tc.input), "t")
			if err != nil {
				t.Fatalf("error %v: a bad line is skipped, not an error", err)
			}
			if len(ds) != tc.devices {
				t.Errorf("%d devices, want %d", len(ds), tc.devices)
			}
			switch {
			case tc.wantNote == "" && len(notes) > 0:
				t.Errorf("notes %v, want none", notes)
			case tc.wantNote != "" && (len(notes) != 1 || notes[0].Kind != NoteSkippedLine || !strings.Contains(notes[0].Text, tc.wantNote)):
				t.Errorf("notes %v, want one skipped-line containing %q", notes, tc.wantNote)
			}
		})
	}
}

// TestParseDiskstatsWholeGroups: counters are used in the groups sysstat
// uses (11, 15, 17), whatever the count the kernel gave.
func TestParseDiskstatsWholeGroups(t *testing.T) {
	counters := func(n int) string {
		var b strings.Builder
		b.WriteString("8 0 sda")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, " %d", i)
		}
		return b.String() + "\n"
	}
	for n, want := range map[int]IOStats{
		11: {ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4, WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 11},
		14: {ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4, WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 14},
		16: {ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4, WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11,
			DiscardIOs: 12, DiscardMerges: 13, DiscardSectors: 14, DiscardTicks: 15, Fields: 16},
		21: {ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4, WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11,
			DiscardIOs: 12, DiscardMerges: 13, DiscardSectors: 14, DiscardTicks: 15, FlushIOs: 16, FlushTicks: 17, Fields: 21},
	} {
		ds, notes, err := ParseDiskstats(strings.NewReader(counters(n)), "t")
		if err != nil || len(notes) > 0 || len(ds) != 1 {
			t.Fatalf("%d counters: %v %v %v", n, ds, notes, err)
		}
		if diff := cmp.Diff(want, ds[0].IOStats); diff != "" {
			t.Errorf("%d counters (-want +got):\n%s", n, diff)
		}
		st, err := ParseSysStat(strings.NewReader(counters(n)[len("8 0 sda "):]), "stat")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, st); diff != "" {
			t.Errorf("stat file with %d counters (-want +got):\n%s", n, diff)
		}
	}
}

func TestParseDiskstatsLenient(t *testing.T) {
	in := "\n   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n\n"
	ds, notes, err := ParseDiskstats(strings.NewReader(in), "t")
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	if len(ds) != 1 || ds[0].Fields != 19 || ds[0].FlushTicks != 17 {
		t.Errorf("a newer kernel's extra counters: got %+v", ds)
	}
}

func TestParseSysStat(t *testing.T) {
	tests := []struct {
		name, input string
		want        IOStats
	}{
		{"17 counters", "   74438     6026  1805730    11371    20710    17073  7277560    63928        0     9380    76031     4072       47   465040      646      632       84\n",
			IOStats{ReadIOs: 74438, ReadMerges: 6026, ReadSectors: 1805730, ReadTicks: 11371, WriteIOs: 20710, WriteMerges: 17073,
				WriteSectors: 7277560, WriteTicks: 63928, IOTicks: 9380, TimeInQueue: 76031, DiscardIOs: 4072, DiscardMerges: 47,
				DiscardSectors: 465040, DiscardTicks: 646, FlushIOs: 632, FlushTicks: 84, Fields: 17}},
		{"15 counters", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11,
			DiscardIOs: 12, DiscardMerges: 13, DiscardSectors: 14, DiscardTicks: 15, Fields: 15}},
		{"11 counters", "1 2 3 4 5 6 7 8 9 10 11\n", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 11}},
		{"4 counters", "10 20 30 40\n", IOStats{ReadIOs: 10, ReadSectors: 20, WriteIOs: 30, WriteSectors: 40, Fields: 4}},
		// What sysstat reads as a device with zero counters.
		{"empty", "", IOStats{}},
		{"7 counters", "1 2 3 4 5 6 7\n", IOStats{Fields: 7}},
		// Numbers up to the first that is not one, as scanf reads them.
		{"12 counters", "1 2 3 4 5 6 7 8 9 10 11 12\n", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 12}},
		{"bad counter", "1 2 3 4 5 6 7 8 9 10 1.5\n", IOStats{Fields: 10}},
		{"second line", "1 2 3 4 5 6 7 8 9 10 11\n12\n", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 11}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSysStat(strings.NewReader(tc.input), "stat")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUptime(t *testing.T) {
	tests := []struct {
		name, input string
		want        uint64
		wantErr     bool
	}{
		{"kernel format", "212.71 335.36\n", 21271, false},
		{"large", "4294000.00 8000000.00\n", 429400000, false},
		{"no idle field", "5.07", 507, false},
		{"one decimal", "5.7 1.00", 0, true},
		{"no dot", "5 1.00", 0, true},
		{"empty", "", 0, true},
		{"blank line", "   \n", 0, true},
		{"negative", "-5.00 1.00", 0, true},
		{"overflow", "184467440737095516.15 0.00", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUptime(strings.NewReader(tc.input), "uptime")
			if tc.wantErr {
				if !errors.Is(err, ErrParse) {
					t.Fatalf("got %d, %v; want an ErrParse", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func FuzzParseDiskstats(f *testing.F) {
	for _, name := range []string{"k20/diskstats", "k18/diskstats", "k14/diskstats", "k7/diskstats", "pairs/tickwrap/diskstats.a"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n")
	f.Add("8 0 sda 1 2 x\n")
	f.Add("8 0 sds 386 416 8554 100 727 820 8746 3902 0 762 7902 0 0 0\n") // 17 fields
	// Lines of 3 to 40 fields.
	for n := 3; n <= 40; n++ {
		fields := []string{"8", "0", "sda"}
		for i := 3; i < n; i++ {
			fields = append(fields, strconv.Itoa(i*7))
		}
		f.Add(strings.Join(fields, " ") + "\n")
	}
	f.Fuzz(func(t *testing.T, in string) {
		ds, notes, err := ParseDiskstats(strings.NewReader(in), "fuzz")
		if err != nil {
			t.Fatalf("error %v: only a failed read may stop the parse", err)
		}
		// Every non-blank line is a device or a note.
		lines := 0
		for _, l := range strings.Split(strings.ReplaceAll(in, "\r", ""), "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(ds)+len(notes) != lines {
			t.Fatalf("%d non-blank lines gave %d devices and %d notes", lines, len(ds), len(notes))
		}
		for _, n := range notes {
			if n.Kind != NoteSkippedLine {
				t.Fatalf("note %v", n)
			}
		}
		for _, d := range ds {
			if d.Fields != FieldsPartOld && d.Fields < FieldsBasic {
				t.Fatalf("%s: accepted %d counters", d.Name, d.Fields)
			}
			if d.Name == "" {
				t.Fatal("empty name")
			}
			// A parsed device must survive a delta against itself and
			// a report.
			dd := diskDelta(d, d.IOStats, false, 100)
			if e := dd.Ext(); e.RPerS != 0 || e.Util != 0 {
				t.Fatalf("%s: a delta against itself is not zero: %+v", d.Name, e)
			}
			_ = dd.Basic()
		}
	})
}

func FuzzParseSysStat(f *testing.F) {
	f.Add("   74438     6026  1805730    11371    20710    17073  7277560    63928        0     9380    76031     4072       47   465040      646      632       84\n")
	f.Add("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n")
	f.Add("1 2 3 4 5 6 7 8 9 10 11 12 13 14\n")
	f.Add("1 2 3 4\n")
	f.Add("1 2 3 4 5 6 7 8 9 10 11\n\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSysStat(strings.NewReader(in), "fuzz")
		if err != nil {
			t.Fatalf("error %v: only a failed read is an error", err)
		}
		if s.Fields < FieldsBasic && s.Fields != FieldsPartOld && s != (IOStats{Fields: s.Fields}) {
			t.Fatalf("%d counters, but some read non-zero: %+v", s.Fields, s)
		}
	})
}

func FuzzParseUptime(f *testing.F) {
	f.Add("212.71 335.36\n")
	f.Add("1.5")
	f.Fuzz(func(t *testing.T, in string) {
		cs, err := ParseUptime(strings.NewReader(in), "fuzz")
		if err == nil && !strings.Contains(in, ".") {
			t.Fatalf("accepted %q as %d", in, cs)
		}
	})
}
