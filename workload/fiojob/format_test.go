package fiojob

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"stortest.dev/workload"
)

// TestJobText checks that jobText's helpers leave an option at its
// default out and print it otherwise in fio's syntax.
func TestJobText(t *testing.T) {
	var b jobText
	b.str("s", "")
	b.flag("f", false)
	b.unflag("u", false)
	b.num("n", 1, 1)
	b.dur("d", 0)
	b.ms("m", 0)
	b.size("z", 0)
	if b.Len() != 0 {
		t.Errorf("options at their default printed %q", b.String())
	}
	b.str("s", "x")
	b.flag("f", true)
	b.unflag("u", true)
	b.num("n", 0, 1)
	b.dur("d", 1500*time.Microsecond)
	b.ms("m", 2500*time.Microsecond)
	b.size("z", 8192)
	const want = "s=x\nf=1\nu=0\nn=0\nd=1500us\nm=2\nz=8k\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestFormatWriteHint checks write_hint's printing: a named hint as its
// name, which Parse reads back; a value without a name (a job never
// validated) as its number, which Parse refuses, as fio does, rather
// than a panic or another hint.
func TestFormatWriteHint(t *testing.T) {
	for h, name := range workload.WriteHints {
		if name == "" {
			continue
		}
		j := workload.Job{Name: "a", WriteHint: h}
		if s := Format(j); !strings.Contains(s, "\nwrite_hint="+name+"\n") {
			t.Errorf("hint %d printed as\n%s", h, s)
		}
		if back := roundTripJob(t, j); back.WriteHint != h {
			t.Errorf("hint %d read back as %d", h, back.WriteHint)
		}
	}
	for _, h := range []int{-1, len(workload.WriteHints), math.MaxInt, math.MinInt} {
		s := Format(workload.Job{Name: "a", WriteHint: h})
		if want := "\nwrite_hint=" + strconv.Itoa(h) + "\n"; !strings.Contains(s, want) {
			t.Errorf("hint %d printed as\n%s\nwant a line %q", h, s, want[1:])
		}
		if _, err := parseFile(strings.NewReader(s), "hint.fio"); err == nil || !strings.Contains(err.Error(), "write_hint") {
			t.Errorf("hint %d: Parse read %q back with error %v, want one naming write_hint", h, s, err)
		}
	}
}
