package fiojob

import (
	"testing"
	"time"
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
