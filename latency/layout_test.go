package latency

import (
	"math/rand/v2"
	"testing"
)

func TestLayoutFioFacts(t *testing.T) {
	l := FioLayout
	if got := l.Buckets(); got != 1856 {
		t.Fatalf("Buckets() = %d, want 1856", got)
	}
	cases := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"value(128)", l.Value(128), 129},
		{"value(129)", l.Value(129), 131},
		{"value(127)", l.Value(127), 127},
		{"value(1855)", l.Value(1855), 17112760320},
		{"ceiling", l.Ceiling(), 1 << 34},
		{"index(2^34)", uint64(l.Index(1 << 34)), 1855},
		{"index(2^40)", uint64(l.Index(1 << 40)), 1855},
		{"index(2^34-1)", uint64(l.Index(1<<34 - 1)), 1855},
		{"index(0)", uint64(l.Index(0)), 0},
		{"index(128)", uint64(l.Index(128)), 128},
		{"index(130)", uint64(l.Index(130)), 129},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// Every bucket's representative value and bounds map back to the bucket,
// for every supported group count.
func TestLayoutRoundTrip(t *testing.T) {
	for groups := minGroups; groups <= MaxGroups; groups++ {
		l, err := NewLayout(groups)
		if err != nil {
			t.Fatal(err)
		}
		var prevHi uint64
		for idx := 0; idx < l.Buckets(); idx++ {
			lo, hi := l.Bounds(idx)
			if lo != prevHi {
				t.Fatalf("groups %d bucket %d starts at %d, previous ended at %d", groups, idx, lo, prevHi)
			}
			prevHi = hi
			if got := l.Index(l.Value(idx)); got != idx {
				t.Fatalf("groups %d: Index(Value(%d)=%d) = %d", groups, idx, l.Value(idx), got)
			}
			if got := l.Index(lo); got != idx {
				t.Fatalf("groups %d: Index(lo=%d) = %d, want %d", groups, lo, got, idx)
			}
			if idx < l.Buckets()-1 {
				if got := l.Index(hi - 1); got != idx {
					t.Fatalf("groups %d: Index(hi-1=%d) = %d, want %d", groups, hi-1, got, idx)
				}
			}
		}
		if c := l.Ceiling(); c != prevHi {
			t.Fatalf("groups %d: ceiling %d, buckets end at %d", groups, c, prevHi)
		}
	}
}

// The relative width of any bucket past the exact ones is at most 1/64.
func TestLayoutRelativeWidth(t *testing.T) {
	l, _ := NewLayout(MaxGroups)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		v := r.Uint64() >> (1 + r.IntN(63))
		idx := l.Index(v)
		lo, hi := l.Bounds(idx)
		if v < lo || (hi > lo && v >= hi) {
			t.Fatalf("value %d outside its bucket %d [%d,%d)", v, idx, lo, hi)
		}
		if v >= 128 && float64(hi-lo)/float64(lo) > 1.0/64 {
			t.Fatalf("bucket %d [%d,%d) wider than 1/64", idx, lo, hi)
		}
	}
}

func TestNewLayoutErrors(t *testing.T) {
	for _, g := range []int{-1, 0, 1, MaxGroups + 1} {
		if _, err := NewLayout(g); err == nil {
			t.Errorf("NewLayout(%d) succeeded", g)
		}
	}
	if _, err := LayoutForBuckets(100); err == nil {
		t.Error("LayoutForBuckets(100) succeeded")
	}
	l, err := LayoutForBuckets(1856)
	if err != nil || l != FioLayout {
		t.Errorf("LayoutForBuckets(1856) = %v, %v", l, err)
	}
}
