package iogen

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

func TestParseDistribution(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want workload.Distribution
		out  string // String() of the result
	}{
		{"random", workload.Distribution{}, "random"},
		{"zipf:1.2", workload.Distribution{Kind: workload.DistZipf, Param: 1.2}, "zipf:1.2"},
		{"zipf:0.8:0.25", workload.Distribution{Kind: workload.DistZipf, Param: 0.8, Center: 0.25, HasCenter: true}, "zipf:0.8:0.25"},
		{"pareto:0.9", workload.Distribution{Kind: workload.DistPareto, Param: 0.9}, "pareto:0.9"},
		{"pareto:0.9:0", workload.Distribution{Kind: workload.DistPareto, Param: 0.9, HasCenter: true}, "pareto:0.9:0"},
		{"normal:50", workload.Distribution{Kind: workload.DistNormal, Param: 50}, "normal:50"},
		{"normal:5:0.5", workload.Distribution{Kind: workload.DistNormal, Param: 5}, "normal:5"}, // 0.5 is normal's default center
		{"normal:5:1", workload.Distribution{Kind: workload.DistNormal, Param: 5, Center: 1, HasCenter: true}, "normal:5:1"},
		{"zoned:60/10:40/90", workload.Distribution{Kind: workload.DistZoned, Zones: "60/10:40/90"}, "zoned:60/10:40/90"},
		// examples/rand-zones.fio: a blank range is the rest, as fio 3.33 reads it.
		{"zoned:50/5:30/15:20/", workload.Distribution{Kind: workload.DistZoned, Zones: "50/5:30/15:20/80"}, "zoned:50/5:30/15:20/80"},
		{"zoned_abs=60/20G:40/1024m", workload.Distribution{Kind: workload.DistZonedAbs, Zones: "60/20g:40/1g"}, "zoned_abs:60/20g:40/1g"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := fio.ParseDistribution(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.String() != tc.out {
				t.Errorf("String() = %q, want %q", got.String(), tc.out)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back workload.Distribution
			if err := json.Unmarshal(b, &back); err != nil || back != got {
				t.Errorf("JSON %s round trip = %+v, %v", b, back, err)
			}
		})
	}
	for _, bad := range []string{"", "uniform", "random:1", "zipf:", "zipf:1", "zipf:0", "zipf:-1", "zipf:x",
		"zipf:1.2:2", "zipf:1.2:0.5:1", "pareto:1", "pareto:0", "normal:0", "normal:101", "normal:NaN",
		"zipf:Inf", "zoned_abs=60/20G", "zoned:60/10:30/20", "zoned:50/60:50/50", "zoned:50/:50/",
		"zoned:100/100:0/", "zoned:50/10,w:50/10", "zoned:50", "zoned:x/10:100/10", "zoned_abs:50/10g:50/", "zoned:101/10"} {
		if d, err := fio.ParseDistribution(bad); err == nil {
			t.Errorf("ParseDistribution(%q) = %+v, want an error", bad, d)
		}
	}
}

// TestZonedSampler: each zone gets its share of the draws, spread over
// its blocks only; zoned_abs places zones by bytes through the offset
// generator's block size.
func TestZonedSampler(t *testing.T) {
	const blocks, n = 1000, 200000
	d, err := fio.ParseDistribution("zoned:60/10:30/20:8/30:2/40")
	if err != nil {
		t.Fatal(err)
	}
	c := counts(t, d, blocks, n, 7)
	zone := func(lo, hi int) float64 {
		s := 0
		for _, v := range c[lo:hi] {
			s += v
		}
		return float64(s) / n
	}
	for _, z := range []struct {
		lo, hi int
		want   float64
	}{{0, 100, 0.60}, {100, 300, 0.30}, {300, 600, 0.08}, {600, 1000, 0.02}} {
		if got := zone(z.lo, z.hi); math.Abs(got-z.want) > 0.01 {
			t.Errorf("blocks [%d,%d): %.3f of the draws, want %.2f", z.lo, z.hi, got, z.want)
		}
	}
	// Within a zone the draws are uniform: both halves of the hot zone
	// get about 30%.
	if a, b := zone(0, 50), zone(50, 100); math.Abs(a-b) > 0.01 {
		t.Errorf("hot zone halves %.3f and %.3f, want equal", a, b)
	}

	// zoned_abs over 4 KiB blocks: 50% in the first 64 KiB (16 blocks),
	// 50% in the next 128 KiB (32 blocks), nothing past 192 KiB.
	o, err := NewOffsets(OffsetConfig{Size: 1 << 20, Align: 4096, Random: true,
		Dist: workload.Distribution{Kind: workload.DistZonedAbs, Zones: "50/64k:50/128k"}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var first, second int
	for range 10000 {
		off, _ := o.Next(4096)
		switch {
		case off < 64<<10:
			first++
		case off < 192<<10:
			second++
		default:
			t.Fatalf("offset %d is past the zones", off)
		}
	}
	if math.Abs(float64(first)/10000-0.5) > 0.03 {
		t.Errorf("first zone took %d of 10000, want about half", first)
	}
}

// counts draws n samples and returns the per-block counts.
func counts(t *testing.T, d workload.Distribution, blocks uint64, n int, seed uint64) []int {
	t.Helper()
	s, err := NewSampler(d, blocks, seed)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]int, blocks)
	for range n {
		b := s.Next()
		if b >= blocks {
			t.Fatalf("%v: block %d out of [0, %d)", d, b, blocks)
		}
		c[b]++
	}
	return c
}

// topShare returns the share of the draws that the hottest fraction of
// the blocks received.
func topShare(c []int, fraction float64) float64 {
	s := slices.Clone(c)
	slices.Sort(s)
	slices.Reverse(s)
	k := int(math.Round(fraction * float64(len(s))))
	top, all := 0, 0
	for i, v := range s {
		if i < k {
			top += v
		}
		all += v
	}
	return float64(top) / float64(all)
}

func TestZipfShape(t *testing.T) {
	const blocks, draws = 10000, 200000
	for _, theta := range []float64{0.8, 1.2} {
		// The exact Zipf share of the top 1% of ranks.
		var top, all float64
		for i := 1; i <= blocks; i++ {
			p := math.Pow(float64(i), -theta)
			all += p
			if i <= blocks/100 {
				top += p
			}
		}
		want := top / all
		c := counts(t, workload.Distribution{Kind: workload.DistZipf, Param: theta}, blocks, draws, 1)
		// Gray et al.'s generator approximates Zipf past the two hottest
		// ranks; it stays within 2 points of the exact share here.
		if got := topShare(c, 0.01); math.Abs(got-want) > 0.03 {
			t.Errorf("zipf:%v: top 1%% of blocks got %.3f of the I/O, want %.3f", theta, got, want)
		}
		hottest := slices.Index(c, slices.Max(c))
		// Scattered: the hottest block is not simply block 0.
		if hottest == 0 {
			t.Errorf("zipf:%v without a center puts the hottest block at 0: not scattered", theta)
		}
		// With a center, the hottest block sits there.
		cc := counts(t, workload.Distribution{Kind: workload.DistZipf, Param: theta, Center: 0.3, HasCenter: true}, blocks, draws/10, 1)
		if h := slices.Index(cc, slices.Max(cc)); h != 3000 {
			t.Errorf("zipf:%v:0.3: hottest block %d, want 3000", theta, h)
		}
	}
}

func TestParetoShape(t *testing.T) {
	// pareto:h sends a fraction h of the I/O to a fraction 1-h of the blocks.
	for _, h := range []float64{0.8, 0.9} {
		c := counts(t, workload.Distribution{Kind: workload.DistPareto, Param: h}, 10000, 200000, 2)
		if got := topShare(c, 1-h); math.Abs(got-h) > 0.02 {
			t.Errorf("pareto:%v: top %.0f%% of blocks got %.3f of the I/O, want %.2f", h, 100*(1-h), got, h)
		}
	}
}

func TestNormalShape(t *testing.T) {
	const blocks, draws = 10000, 100000
	for _, tc := range []struct {
		d          workload.Distribution
		mean, sdev float64 // in blocks
	}{
		{workload.Distribution{Kind: workload.DistNormal, Param: 10}, 5000, 1000},
		{workload.Distribution{Kind: workload.DistNormal, Param: 5, Center: 0.25, HasCenter: true}, 2500, 500},
	} {
		c := counts(t, tc.d, blocks, draws, 3)
		var sum, sq float64
		for b, n := range c {
			sum += float64(b) * float64(n)
		}
		mean := sum / draws
		for b, n := range c {
			sq += float64(n) * (float64(b) - mean) * (float64(b) - mean)
		}
		sdev := math.Sqrt(sq / (draws - 1))
		if math.Abs(mean-tc.mean) > 0.01*blocks || math.Abs(sdev-tc.sdev) > 0.03*tc.sdev {
			t.Errorf("%v: mean %.0f sdev %.0f, want %.0f and %.0f", tc.d, mean, sdev, tc.mean, tc.sdev)
		}
		// About 68% within one standard deviation.
		in := 0
		for b, n := range c {
			if math.Abs(float64(b)-tc.mean) < tc.sdev {
				in += n
			}
		}
		if f := float64(in) / draws; math.Abs(f-0.6827) > 0.01 {
			t.Errorf("%v: %.3f of the draws within one sdev, want 0.683", tc.d, f)
		}
	}
	// Truncated to the range even when the deviation is wide.
	counts(t, workload.Distribution{Kind: workload.DistNormal, Param: 100, Center: 0, HasCenter: true}, 100, 10000, 4)
}

func TestUniformSampler(t *testing.T) {
	c := counts(t, workload.Distribution{}, 10, 100000, 5)
	for b, n := range c {
		if n < 9500 || n > 10500 {
			t.Errorf("block %d drawn %d times of 100000, want about 10000", b, n)
		}
	}
}

func TestSamplerEdges(t *testing.T) {
	for _, d := range []workload.Distribution{{}, {Kind: workload.DistZipf, Param: 1.2}, {Kind: workload.DistZipf, Param: 0.5},
		{Kind: workload.DistPareto, Param: 0.5}, {Kind: workload.DistNormal, Param: 50}} {
		for _, n := range []uint64{1, 2, 3} {
			counts(t, d, n, 1000, 6)
		}
	}
	if _, err := NewSampler(workload.Distribution{}, 0, 1); err == nil {
		t.Error("NewSampler over 0 blocks: want an error")
	}
	if _, err := NewSampler(workload.Distribution{Kind: workload.DistPareto, Param: 2}, 10, 1); err == nil {
		t.Error("NewSampler(pareto:2): want an error")
	}
}

func TestZeta(t *testing.T) {
	for _, theta := range []float64{0.5, 0.8, 1.2, 2} {
		for _, n := range []uint64{1, 10000, 10001, 123457} {
			exact := 0.0
			for i := n; i >= 1; i-- { // smallest terms first
				exact += math.Pow(float64(i), -theta)
			}
			if got := zeta(n, theta); math.Abs(got-exact)/exact > 1e-12 {
				t.Errorf("zeta(%d, %v) = %.15g, want %.15g", n, theta, got, exact)
			}
		}
	}
}
