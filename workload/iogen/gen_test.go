package iogen

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"stortest.dev/workload"
)

func TestPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 65, 1000, 4097} {
		for _, seed := range []uint64{0, 1, 0xdeadbeef} {
			p := newPermutation(n, seed)
			seen := make([]bool, n)
			for i := range n {
				x := p.at(i)
				if x >= n || seen[x] {
					t.Fatalf("n=%d seed=%d: at(%d) = %d: out of range or repeated", n, seed, i, x)
				}
				seen[x] = true
			}
		}
	}
	// Different seeds order differently, and the order does not walk the
	// blocks in sequence.
	a, b := newPermutation(1000, 1), newPermutation(1000, 2)
	same, steps := 0, 0
	for i := range uint64(1000) {
		if a.at(i) == b.at(i) {
			same++
		}
		if i > 0 {
			if d := int64(a.at(i)) - int64(a.at(i-1)); d == 1 || d == -1 {
				steps++
			}
		}
	}
	if same > 20 {
		t.Errorf("seeds 1 and 2 agree on %d of 1000 positions", same)
	}
	if steps > 50 {
		t.Errorf("%d of 999 consecutive outputs are neighbours: not random-looking", steps)
	}
}

func TestOffsetsRandomMapCoverage(t *testing.T) {
	const align, blocks = 4096, 1000
	o, err := NewOffsets(OffsetConfig{Start: 1 << 20, Size: blocks*align + 100, Align: align, Random: true, RandomMap: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocks() != blocks {
		t.Fatalf("Blocks = %d, want %d (the partial block at the end is dropped)", o.Blocks(), blocks)
	}
	var orders [][]int64
	for pass := range 3 {
		seen := map[int64]bool{}
		var order []int64
		for range blocks {
			if o.Passes() != int64(pass) {
				t.Fatalf("Passes = %d during pass %d", o.Passes(), pass)
			}
			off, n := o.Next(align)
			if n != align || off < 1<<20 || off >= 1<<20+blocks*align || (off-1<<20)%align != 0 {
				t.Fatalf("Next = %d, %d: outside the region or misaligned", off, n)
			}
			if seen[off] {
				t.Fatalf("pass %d: offset %d twice", pass, off)
			}
			seen[off] = true
			order = append(order, off)
		}
		orders = append(orders, order)
	}
	if o.Passes() != 3 {
		t.Errorf("Passes = %d after 3 passes", o.Passes())
	}
	if slices.Equal(orders[0], orders[1]) || slices.Equal(orders[1], orders[2]) {
		t.Error("every pass visits the blocks in the same order")
	}
}

func TestOffsetsSequential(t *testing.T) {
	o, err := NewOffsets(OffsetConfig{Start: 512, Size: 10 * 512, Align: 512})
	if err != nil {
		t.Fatal(err)
	}
	type io struct{ off, n int64 }
	var got []io
	for range 5 {
		off, n := o.Next(2048) // 4 blocks: the third I/O is clipped to 2 blocks
		got = append(got, io{off, n})
	}
	want := []io{{512, 2048}, {2560, 2048}, {4608, 1024}, {512, 2048}, {2560, 2048}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if o.Passes() != 1 {
		t.Errorf("Passes = %d, want 1", o.Passes())
	}
}

func TestOffsetsUniform(t *testing.T) {
	const blocks = 1000
	o, err := NewOffsets(OffsetConfig{Size: blocks * 512, Align: 512, Random: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for i := range blocks {
		off, n := o.Next(512)
		if off < 0 || off >= blocks*512 || off%512 != 0 || n != 512 {
			t.Fatalf("Next = %d, %d", off, n)
		}
		seen[off] = true
		if want := int64((i + 1) / blocks); o.Passes() != want {
			t.Fatalf("after %d I/Os Passes = %d, want %d", i+1, o.Passes(), want)
		}
	}
	// With replacement, about 1-1/e of the blocks are hit in one pass.
	if len(seen) < 550 || len(seen) > 720 {
		t.Errorf("norandommap hit %d distinct blocks of %d in one pass, want about 632", len(seen), blocks)
	}
}

func TestOffsetsErrors(t *testing.T) {
	for _, c := range []OffsetConfig{
		{Size: 4096, Align: 0},
		{Size: 4095, Align: 4096},
		{Start: -1, Size: 8192, Align: 4096},
		{Size: 8192, Align: 4096, Random: true, Dist: workload.Distribution{Kind: workload.DistZipf, Param: 1}},
	} {
		if _, err := NewOffsets(c); err == nil {
			t.Errorf("NewOffsets(%+v): want an error", c)
		}
	}
}

func TestOffsetsDeterministic(t *testing.T) {
	for _, c := range []OffsetConfig{
		{Size: 1 << 20, Align: 4096, Random: true, RandomMap: true},
		{Size: 1 << 20, Align: 4096, Random: true},
		{Size: 1 << 20, Align: 4096, Random: true, Dist: workload.Distribution{Kind: workload.DistZipf, Param: 1.1}},
		{Size: 1 << 20, Align: 4096, Random: true, Dist: workload.Distribution{Kind: workload.DistPareto, Param: 0.7}},
		{Size: 1 << 20, Align: 4096, Random: true, Dist: workload.Distribution{Kind: workload.DistNormal, Param: 20}},
	} {
		seq := func(seed uint64) []int64 {
			c.Seed = seed
			o, err := NewOffsets(c)
			if err != nil {
				t.Fatal(err)
			}
			var s []int64
			for range 500 {
				off, _ := o.Next(4096)
				s = append(s, off)
			}
			return s
		}
		if !slices.Equal(seq(1), seq(1)) {
			t.Errorf("%+v: the same seed gives different offsets", c)
		}
		if slices.Equal(seq(1), seq(2)) {
			t.Errorf("%+v: different seeds give the same offsets", c)
		}
	}
}

func TestBlockSizes(t *testing.T) {
	fixed := NewBlockSizes(&workload.Job{BlockSize: 8192}, 1)
	for range 10 {
		if n := fixed.Next(); n != 8192 {
			t.Fatalf("fixed bs: %d", n)
		}
	}
	r := NewBlockSizes(&workload.Job{BlockSizeRange: workload.BlockSizeRange{Min: 4096, Max: 16384 + 100}}, 1)
	counts := map[int64]int{}
	for range 4000 {
		counts[r.Next()]++
	}
	for _, want := range []int64{4096, 8192, 12288, 16384} {
		if counts[want] < 800 || counts[want] > 1200 {
			t.Errorf("bsrange: %d drawn %d times of 4000, want about 1000", want, counts[want])
		}
	}
	if len(counts) != 4 {
		t.Errorf("bsrange drew %v: want multiples of the minimum only", counts)
	}
	if r.Min() != 4096 || r.Max() != 16384+100 {
		t.Errorf("Min/Max = %d/%d", r.Min(), r.Max())
	}
	split := []workload.BlockSizeSplit{{Size: 65536, Percent: 10}, {Size: 4096, Percent: 60}, {Size: 16384, Percent: 30}, {Size: 512, Percent: 0}}
	s := NewBlockSizes(&workload.Job{BlockSizeSplit: split}, 9)
	counts = map[int64]int{}
	const n = 100000
	for range n {
		counts[s.Next()]++
	}
	for _, e := range split {
		got := float64(counts[e.Size]) / n * 100
		if math.Abs(got-float64(e.Percent)) > 1 {
			t.Errorf("bssplit: %d drawn %.2f%% of the time, want %d%%", e.Size, got, e.Percent)
		}
	}
}

func TestMixer(t *testing.T) {
	for _, tc := range []struct {
		rw   workload.RW
		pct  int
		want float64 // fraction of reads
	}{
		{workload.Read, 10, 1}, {workload.RandRead, 0, 1}, {workload.Write, 90, 0}, {workload.RandWrite, 50, 0},
		{workload.ReadWrite, 70, 0.7}, {workload.RandRW, 50, 0.5}, {workload.RandRW, 100, 1}, {workload.RandRW, 1, 0.01},
	} {
		m := NewMixer(tc.rw, tc.pct, 5)
		reads := 0
		const n = 100000
		for range n {
			if m.Next() == workload.DirRead {
				reads++
			}
		}
		if got := float64(reads) / n; math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%v rwmixread=%d: %.3f reads, want %.2f", tc.rw, tc.pct, got, tc.want)
		}
	}
}

func TestPatternRandRWSharesTheMap(t *testing.T) {
	j := workload.Job{Name: "p", RW: workload.RandRW, RWMixRead: 30, Size: 256 * 4096, Offset: 8192}
	p, err := NewPattern(&j, 0, Seed(&j, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if start, size := p.Region(); start != 8192 || size != 256*4096 {
		t.Fatalf("Region = %d, %d", start, size)
	}
	seen := map[int64]bool{}
	dirs := map[workload.Dir]int{}
	for range 256 {
		io := p.Next()
		if seen[io.Offset] {
			t.Fatalf("offset %d twice in one pass", io.Offset)
		}
		seen[io.Offset] = true
		dirs[io.Dir]++
	}
	if p.Passes() != 1 {
		t.Errorf("Passes = %d after one pass", p.Passes())
	}
	if dirs[workload.DirRead] == 0 || dirs[workload.DirWrite] == 0 {
		t.Errorf("directions %v: want both", dirs)
	}
}

func TestPatternSequentialMixedStreams(t *testing.T) {
	j := workload.Job{Name: "p", RW: workload.ReadWrite, BlockSize: 4096}
	p, err := NewPattern(&j, 64*4096, 11)
	if err != nil {
		t.Fatal(err)
	}
	next := map[workload.Dir]int64{}
	for range 64 {
		io := p.Next()
		if io.Offset != next[io.Dir] {
			t.Fatalf("%v at %d, want %d: each direction is sequential on its own", io.Dir, io.Offset, next[io.Dir])
		}
		next[io.Dir] += io.Len
	}
	if p.Passes() != 1 {
		t.Errorf("Passes = %d after a region's worth of bytes", p.Passes())
	}
	// The runner may issue another direction than the draw (rate limits).
	if io := p.NextIO(workload.DirWrite); io.Dir != workload.DirWrite || io.Offset != next[workload.DirWrite]%(64*4096) {
		t.Errorf("NextIO(write) = %+v", io)
	}
}

func TestPatternRegion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		j        workload.Job
		fileSize int64
		start    int64
		size     int64
		err      bool
	}{
		{"whole file", workload.Job{Name: "a"}, 1 << 20, 0, 1 << 20, false},
		{"from offset", workload.Job{Name: "a", Offset: 4096}, 1 << 20, 4096, 1<<20 - 4096, false},
		{"rounded down", workload.Job{Name: "a", Size: 10000}, 0, 0, 8192, false},
		{"unknown size", workload.Job{Name: "a"}, 0, 0, 0, true},
		{"past the end", workload.Job{Name: "a", Offset: 4096, Size: 1 << 20}, 1 << 20, 0, 0, true},
		{"offset past the end", workload.Job{Name: "a", Offset: 2 << 20}, 1 << 20, 0, 0, true},
		{"below a block", workload.Job{Name: "a", BlockSize: 8192}, 4096, 0, 0, true},
		{"invalid job", workload.Job{}, 1 << 20, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPattern(&tc.j, tc.fileSize, 1)
			if tc.err {
				if err == nil {
					t.Fatal("want an error")
				}
				if tc.j.Name != "" && !errors.Is(err, ErrRegion) {
					t.Errorf("error %v: want ErrRegion", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if start, size := p.Region(); start != tc.start || size != tc.size {
				t.Errorf("Region = %d, %d; want %d, %d", start, size, tc.start, tc.size)
			}
		})
	}
}

// TestNextAllocs proves the per-I/O calls allocate nothing.
func TestNextAllocs(t *testing.T) {
	jobs := []workload.Job{
		{Name: "seq", RW: workload.ReadWrite, BlockSizeRange: workload.BlockSizeRange{Min: 4096, Max: 65536}},
		{Name: "map", RW: workload.RandRW, BlockSizeSplit: []workload.BlockSizeSplit{{Size: 4096, Percent: 50}, {Size: 8192, Percent: 50}}},
		{Name: "uniform", RW: workload.RandRead, NoRandomMap: true},
		{Name: "zipf", RW: workload.RandRead, RandomDistribution: workload.Distribution{Kind: workload.DistZipf, Param: 1.2}},
		{Name: "pareto", RW: workload.RandWrite, RandomDistribution: workload.Distribution{Kind: workload.DistPareto, Param: 0.8, Center: 0.5, HasCenter: true}},
		{Name: "normal", RW: workload.RandRead, RandomDistribution: workload.Distribution{Kind: workload.DistNormal, Param: 10}},
	}
	for _, j := range jobs {
		p, err := NewPattern(&j, 1<<30, 1)
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(1000, func() { _ = p.Next() }); a != 0 {
			t.Errorf("%s: Pattern.Next allocates %v times per call", j.Name, a)
		}
	}
}

func BenchmarkPatternNext(b *testing.B) {
	for _, j := range []workload.Job{
		{Name: "seq", RW: workload.Read},
		{Name: "randmap", RW: workload.RandRead},
		{Name: "norandommap", RW: workload.RandRead, NoRandomMap: true},
		{Name: "zipf", RW: workload.RandRead, RandomDistribution: workload.Distribution{Kind: workload.DistZipf, Param: 1.2}},
		{Name: "normal", RW: workload.RandRead, RandomDistribution: workload.Distribution{Kind: workload.DistNormal, Param: 10}},
		{Name: "randrw-bssplit", RW: workload.RandRW, BlockSizeSplit: []workload.BlockSizeSplit{{Size: 4096, Percent: 50}, {Size: 65536, Percent: 50}}},
	} {
		b.Run(j.Name, func(b *testing.B) {
			p, err := NewPattern(&j, 1<<40, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var sink int64
			for b.Loop() {
				sink += p.Next().Offset
			}
			_ = sink
		})
	}
}

// With mixed block sizes the random map marks every block an I/O covers,
// as fio's does: each pass uses every block exactly once, so it moves the
// region's size in bytes (not one I/O of up to the largest size per
// block), and I/Os stay inside the region.
func TestOffsetsRandomMapMixedSizes(t *testing.T) {
	const align, blocks, start = 512, 1000, 1 << 20
	sizes := []int64{512, 1024, 4096, 65536, 1536}
	o, err := NewOffsets(OffsetConfig{Start: start, Size: blocks*align + 100, Align: align, MaxLen: 65536,
		Random: true, RandomMap: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for pass := range 3 {
		var used [blocks]bool
		var bytes, ios int64
		for o.Passes() == int64(pass) {
			off, n := o.Next(sizes[ios%int64(len(sizes))])
			ios++
			if n <= 0 || n%align != 0 || (off-start)%align != 0 || off < start || off+n > start+blocks*align {
				t.Fatalf("pass %d: Next = %d, %d: outside the region or misaligned", pass, off, n)
			}
			for b := (off - start) / align; b < (off-start+n)/align; b++ {
				if used[b] {
					t.Fatalf("pass %d: block %d used twice", pass, b)
				}
				used[b] = true
			}
			bytes += n
		}
		if bytes != blocks*align {
			t.Errorf("pass %d moved %d bytes in %d I/Os, want the region's %d", pass, bytes, ios, blocks*align)
		}
	}
}

// fio's t/jobs/t0001-52c58027.fio: size=20000, bsrange=1k-4k, randread.
// A pass reads the 19 whole 1 KiB blocks once: 19456 bytes, as fio 3.33.
func TestPatternBsrangePassBytes(t *testing.T) {
	for _, j := range []workload.Job{
		{Name: "bsrange", RW: workload.RandRead, Size: 20000, BlockSizeRange: workload.BlockSizeRange{Min: 1 << 10, Max: 4 << 10}},
		{Name: "bssplit", RW: workload.RandRW, Size: 20000, BlockSizeSplit: []workload.BlockSizeSplit{{Size: 1 << 10, Percent: 20}, {Size: 4 << 10, Percent: 80}}},
	} {
		p, err := NewPattern(&j, 0, Seed(&j, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		var bytes int64
		for p.Passes() == 0 {
			bytes += p.Next().Len
		}
		if bytes != 19456 {
			t.Errorf("%s: a pass moved %d bytes, want 19456 (fio 3.33)", j.Name, bytes)
		}
	}
}

// The random map's bits agree with a plain []bool across its levels:
// sizes around a word, a word of words and more.
func TestBlockMap(t *testing.T) {
	for _, n := range []uint64{1, 63, 64, 65, 4095, 4096, 4097, 300_000} {
		m := newBlockMap(n)
		for round := range 2 {
			ref := make([]bool, n)
			rng := rand.New(rand.NewPCG(n, uint64(round)))
			for left := n; left > 0; {
				b := rng.Uint64N(n)
				if ref[b] != m.isSet(b) {
					t.Fatalf("n=%d: isSet(%d) = %v", n, b, m.isSet(b))
				}
				if ref[b] {
					want := b
					for ref[want] {
						want = (want + 1) % n
					}
					if got := m.nextFree(b); got != want {
						t.Fatalf("n=%d: nextFree(%d) = %d, want %d", n, b, got, want)
					}
					b = want
				}
				k := 1 + rng.Uint64N(8)
				var want uint64
				for want < k && b+want < n && !ref[b+want] {
					ref[b+want] = true
					want++
				}
				if got := m.setRun(b, k); got != want {
					t.Fatalf("n=%d: setRun(%d, %d) = %d, want %d", n, b, k, got, want)
				}
				left -= want
				if m.left != left {
					t.Fatalf("n=%d: left = %d, want %d", n, m.left, left)
				}
			}
			m.reset()
		}
	}
}

// TestPatternSizeBound counts the I/Os of size-bound patterns as fio 3.33
// issues them: until the size (times loops) has moved or the offsets end,
// where the size is not a multiple of the block size; the counts are
// fio's (the runner's TestSizeBoundRoundingMatchesFio runs fio beside).
func TestPatternSizeBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		j        workload.Job
		fileSize int64
		want     int
	}{
		{"sequential, the file ends with the region", workload.Job{Size: 10000}, 10000, 2},
		{"sequential, the file goes on", workload.Job{Size: 10000}, 20480, 3},
		{"sequential, size unknown", workload.Job{Size: 10000}, 0, 2},
		{"random, the file goes on", workload.Job{Size: 10000, RW: workload.RandRead}, 20480, 2},
		{"norandommap", workload.Job{Size: 10000, RW: workload.RandRead, NoRandomMap: true}, 10000, 3},
		{"filesize", workload.Job{Size: 10000, Placement: workload.Placement{FileSize: 20480}}, 20480, 3},
		{"filesize, random", workload.Job{Size: 10000, RW: workload.RandWrite, Placement: workload.Placement{FileSize: 20480}}, 20480, 3},
		{"filesize, loops", workload.Job{Size: 10000, Loops: 2, Placement: workload.Placement{FileSize: 20480}}, 20480, 5},
		{"filesize, offset", workload.Job{Size: 20480, Offset: 4096, Placement: workload.Placement{FileSize: 20480}}, 20480, 4},
		{"filesize below size", workload.Job{Size: 10000, Placement: workload.Placement{FileSize: 6026}}, 6026, 1},
		{"no end (null with filesize)", workload.Job{Size: 6026, Placement: workload.Placement{FileSize: 6026}}, math.MaxInt64, 2},
		{"rw", workload.Job{Size: 30000, RW: workload.ReadWrite}, 30000, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.j.Name, tc.j.BlockSize = "a", 4096
			p, err := NewPattern(&tc.j, tc.fileSize, 1)
			if err != nil {
				t.Fatal(err)
			}
			loops := int64(max(tc.j.Loops, 1))
			limit, moved := p.Limit()*loops, int64(0)
			n := 0
			for ; n < 100; n++ {
				if limit > 0 && moved >= limit || limit == 0 && p.Passes() >= loops {
					break
				}
				io := p.Next()
				if io.Offset+io.Len > tc.fileSize && tc.fileSize > 0 {
					t.Fatalf("I/O %+v past the end of the file (%d bytes)", io, tc.fileSize)
				}
				moved += io.Len
			}
			if n != tc.want {
				t.Errorf("%d I/Os, want %d", n, tc.want)
			}
		})
	}
}
