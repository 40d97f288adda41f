package iostat

import (
	"errors"
	"os"
	"path/filepath"
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
	ds, err := ParseDiskstats(f, name)
	if err != nil {
		t.Fatal(err)
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
	ds, err := ParseDiskstats(f, "/proc/diskstats")
	if err != nil {
		t.Fatal(err)
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

func TestParseDiskstatsMalformed(t *testing.T) {
	good := "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	tests := []struct {
		name, input string
		wantMsg     string // substring of the error
	}{
		{"too few fields", good + "   8 1 sda1 1 2 3\n", "line 2: malformed stat data: 6 fields"},
		{"19 fields", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "line 1: malformed stat data: 19 fields"},
		{"15 fields", good + good + "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12\n", "line 3: malformed stat data: 15 fields"},
		{"letters in a counter", "8 0 sda 1 2 3 4 5 x 7 8 9 10 11\n", "line 1: malformed stat data: field 9 (WriteMerges) \"x\""},
		{"negative counter", "8 0 sda 1 2 -3 4 5 6 7 8 9 10 11\n", "field 6 (ReadSectors) \"-3\""},
		{"counter past 2^64", "8 0 sda 18446744073709551616 2 3 4 5 6 7 8 9 10 11\n", "field 4 (ReadIOs)"},
		{"major not a number", "a 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", "field 1 (major) \"a\""},
		{"minor past 32 bits", "8 4294967296 sda 1 2 3 4 5 6 7 8 9 10 11\n", "field 2 (minor)"},
		{"old partition with a bad counter", "3 1 hda1 1 2 z 4\n", "field 6 (WriteIOs) \"z\""},
		{"overlong line", strings.Repeat("1 ", maxLineBytes), "read t: bufio.Scanner: token too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDiskstats(strings.NewReader(tc.input), "t")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), "iostat: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if tc.name != "overlong line" && !errors.Is(err, ErrParse) {
				t.Errorf("error %q does not wrap ErrParse", err)
			}
		})
	}
}

func TestParseDiskstatsLenient(t *testing.T) {
	in := "\n   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n\n"
	ds, err := ParseDiskstats(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Fields != 19 || ds[0].FlushTicks != 17 {
		t.Errorf("a newer kernel's extra counters: got %+v", ds)
	}
}

func TestParseSysStat(t *testing.T) {
	tests := []struct {
		name, input string
		want        IOStats
		wantErr     string
	}{
		{"17 counters", "   74438     6026  1805730    11371    20710    17073  7277560    63928        0     9380    76031     4072       47   465040      646      632       84\n",
			IOStats{ReadIOs: 74438, ReadMerges: 6026, ReadSectors: 1805730, ReadTicks: 11371, WriteIOs: 20710, WriteMerges: 17073,
				WriteSectors: 7277560, WriteTicks: 63928, IOTicks: 9380, TimeInQueue: 76031, DiscardIOs: 4072, DiscardMerges: 47,
				DiscardSectors: 465040, DiscardTicks: 646, FlushIOs: 632, FlushTicks: 84, Fields: 17}, ""},
		{"15 counters", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11,
			DiscardIOs: 12, DiscardMerges: 13, DiscardSectors: 14, DiscardTicks: 15, Fields: 15}, ""},
		{"11 counters", "1 2 3 4 5 6 7 8 9 10 11\n", IOStats{ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadTicks: 4,
			WriteIOs: 5, WriteMerges: 6, WriteSectors: 7, WriteTicks: 8, IOsInProgress: 9, IOTicks: 10, TimeInQueue: 11, Fields: 11}, ""},
		{"4 counters", "10 20 30 40\n", IOStats{ReadIOs: 10, ReadSectors: 20, WriteIOs: 30, WriteSectors: 40, Fields: 4}, ""},
		{"empty", "", IOStats{}, "line 1: malformed stat data: empty file"},
		{"12 counters", "1 2 3 4 5 6 7 8 9 10 11 12\n", IOStats{}, "line 1: malformed stat data: 12 fields"},
		{"bad counter", "1 2 3 4 5 6 7 8 9 10 1.5\n", IOStats{}, "field 11 (TimeInQueue) \"1.5\""},
		{"second line", "1 2 3 4 5 6 7 8 9 10 11\n12\n", IOStats{}, "line 2: malformed stat data: unexpected text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSysStat(strings.NewReader(tc.input), "stat")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrParse) {
					t.Fatalf("error %v, want one containing %q wrapping ErrParse", err, tc.wantErr)
				}
				return
			}
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
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ParseDiskstats(strings.NewReader(in), "fuzz")
		if err != nil {
			if ds != nil {
				t.Fatal("devices returned with an error")
			}
			return
		}
		for _, d := range ds {
			if d.Fields != FieldsPartOld && d.Fields < FieldsBasic || d.Fields == 12 || d.Fields == 13 || d.Fields == 14 || d.Fields == 16 {
				t.Fatalf("%s: accepted %d counters", d.Name, d.Fields)
			}
			if d.Name == "" {
				t.Fatal("empty name")
			}
			// A parsed device must survive a delta against itself.
			dd := diskDelta(d, d.IOStats, false, 100)
			if e := dd.Ext(); e.RPerS != 0 || e.Util != 0 {
				t.Fatalf("%s: a delta against itself is not zero: %+v", d.Name, e)
			}
		}
	})
}

func FuzzParseSysStat(f *testing.F) {
	f.Add("   74438     6026  1805730    11371    20710    17073  7277560    63928        0     9380    76031     4072       47   465040      646      632       84\n")
	f.Add("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n")
	f.Add("1 2 3 4\n")
	f.Add("1 2 3 4 5 6 7 8 9 10 11\n\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSysStat(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if s.Fields != FieldsPartOld && s.Fields != FieldsBasic && s.Fields != FieldsDiscard && s.Fields < FieldsFlush {
			t.Fatalf("accepted %d counters", s.Fields)
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
