package engines

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// faultyEngine wraps a new engine called name in f's faults; closed in
// t.Cleanup. Stops the test (FailNow) on error.
func faultyEngine(t testing.TB, name string, cfg Config, f Faults) Engine {
	t.Helper()
	inner := newEngine(t, name, cfg)
	e, err := WithFaults(inner, cfg.depth(), f)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// units makes n units over bufs, reading block i at offset i*bs.
func makeUnits(bufs *Buffers, n int, bs int64) []*Unit {
	out := make([]*Unit, n)
	for i := range out {
		out[i] = &Unit{Op: OpRead, Offset: int64(i) * bs, Buf: bufs.Buf(i % bufs.Len()), BufIndex: i % bufs.Len()}
	}
	return out
}

// outcome is what happened to one unit, for comparing runs.
type outcome struct {
	Off int64
	Res int64
}

// runUnits drives units one batch of depth at a time (units share buffers
// across batches) and returns each unit's result in order.
func runUnits(t *testing.T, e Engine, units []*Unit, depth int) []outcome {
	t.Helper()
	var out []outcome
	for i := 0; i < len(units); i += depth {
		batch := units[i:min(i+depth, len(units))]
		if _, err := drive(e, batch); err != nil {
			t.Fatal(err)
		}
		for _, u := range batch {
			out = append(out, outcome{u.Offset, u.Res})
		}
	}
	return out
}

// Errors at chosen offsets fail exactly the units that overlap them, on
// synchronous and asynchronous engines, with the errno asked for, and
// Explain names the range; the rest pass through to the inner engine.
func TestFaultsErrAt(t *testing.T) {
	path := tempFile(t, 1<<20)
	for _, v := range []struct {
		name, engine string
		depth        int
	}{{"psync", "psync", 1}, {"io_uring", "io_uring", 8}, {"libaio", "libaio", 8}, {"null-async", "null", 8}} {
		t.Run(v.name, func(t *testing.T) {
			f := openT(t, path, false)
			bufs := allocBuffers(t, v.depth, 4096)
			e := faultyEngine(t, v.engine, Config{File: f, Depth: v.depth, Buffers: bufs.All()},
				Faults{ErrAt: []Range{{Off: 5*4096 + 100, Len: 1}, {Off: 12 * 4096, Len: 8192}}, Errno: unix.EILSEQ})
			units := makeUnits(bufs, 32, 4096)
			got := runUnits(t, e, units, v.depth)
			var failed []int64
			for _, o := range got {
				if o.Res < 0 {
					if o.Res != -int64(unix.EILSEQ) {
						t.Errorf("offset %d: Res %d, want -EILSEQ", o.Off, o.Res)
					}
					failed = append(failed, o.Off)
				} else if o.Res != 4096 {
					t.Errorf("offset %d: Res %d, want 4096", o.Off, o.Res)
				}
			}
			if diff := cmp.Diff([]int64{5 * 4096, 12 * 4096, 13 * 4096}, failed); diff != "" {
				t.Errorf("failed units (-want +got):\n%s", diff)
			}
			// Explain knows which failures it injected.
			u := units[12]
			err := e.Explain(u)
			if !errors.Is(err, ErrInjected) || !errors.Is(err, unix.EILSEQ) || !strings.Contains(err.Error(), "[49152, 57344)") {
				t.Errorf("Explain = %v, want ErrInjected, EILSEQ and the range", err)
			}
			st, _ := InjectedFaults(e)
			if st.Units != 32 || st.Errors != 3 {
				t.Errorf("stats %+v, want 32 units, 3 errors", st)
			}
			// A real failure is explained by the inner engine.
			real := &Unit{Op: OpWrite, Offset: 0, Buf: bufs.Buf(0), Res: -int64(unix.ENOSPC)}
			if err := e.Explain(real); errors.Is(err, ErrInjected) || !errors.Is(err, unix.ENOSPC) {
				t.Errorf("Explain of a real failure = %v", err)
			}
		})
	}
}

// The same seed injects the same faults into the same units, whatever the
// engine's timing; another seed injects others.
func TestFaultsDeterministic(t *testing.T) {
	run := func(seed uint64, engine string, depth int) []outcome {
		bufs := allocBuffers(t, depth, 8192)
		e := faultyEngine(t, engine, Config{Depth: depth, Buffers: bufs.All()},
			Faults{Seed: seed, ErrRate: 0.05, ShortRate: 0.05, ShortAlign: 512})
		return runUnits(t, e, makeUnits(bufs, 2000, 8192), depth)
	}
	a, b := run(1, "null", 1), run(1, "null", 8)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("seed 1 at depth 1 and 8 differ (-depth1 +depth8):\n%s", diff)
	}
	var fails, shorts int
	for _, o := range a {
		switch {
		case o.Res < 0:
			fails++
		case o.Res < 8192:
			shorts++
			if o.Res%512 != 0 || o.Res < 512 {
				t.Errorf("short transfer of %d bytes is not a positive multiple of 512", o.Res)
			}
		}
	}
	// 2000 draws at 5%: 100 expected, sd ~9.7.
	if fails < 60 || fails > 140 || shorts < 50 || shorts > 140 {
		t.Errorf("%d failures and %d short transfers of 2000 at 5%% each", fails, shorts)
	}
	if c := run(2, "null", 1); cmp.Equal(a, c) {
		t.Error("seeds 1 and 2 inject the same faults")
	}
}

// A short transfer really is short: a short write changes only its first
// Res bytes, and the unit's buffer length is restored.
func TestFaultsShortWrite(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	bufs := allocBuffers(t, 1, 65536)
	e := faultyEngine(t, "psync", Config{File: f, Buffers: bufs.All()}, Faults{ShortRate: 1, ShortAlign: 4096})
	u := &Unit{Op: OpWrite, Offset: 0, Buf: bufs.Buf(0)}
	for i := range u.Buf {
		u.Buf[i] = 0xa5
	}
	if st, err := e.Queue(u); st != Completed || err != nil {
		t.Fatalf("Queue = %v, %v", st, err)
	}
	if len(u.Buf) != 65536 {
		t.Fatalf("Buf length %d after the short write, want 65536 restored", len(u.Buf))
	}
	if u.Res <= 0 || u.Res >= 65536 || u.Res%4096 != 0 {
		t.Fatalf("Res %d, want a multiple of 4096 below 65536", u.Res)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:u.Res], bytes.Repeat([]byte{0xa5}, int(u.Res))) || !bytes.Equal(got[u.Res:65536], make([]byte, 65536-u.Res)) {
		t.Errorf("the file holds more or less than the %d bytes the short write reported", u.Res)
	}
}

// Real latency: a synchronous engine's Queue takes the delay; on an
// asynchronous engine a stalled unit holds only its own slot, the others
// complete on their own time.
func TestFaultsLatencyRealTime(t *testing.T) {
	path := tempFile(t, 1<<20)
	t.Run("psync", func(t *testing.T) {
		f := openT(t, path, false)
		bufs := allocBuffers(t, 1, 4096)
		e := faultyEngine(t, "psync", Config{File: f, Buffers: bufs.All()}, Faults{Latency: 3 * time.Millisecond})
		u := &Unit{Op: OpRead, Buf: bufs.Buf(0)}
		for range 5 {
			start := time.Now()
			if _, err := e.Queue(u); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d < 3*time.Millisecond || d > 200*time.Millisecond {
				t.Errorf("Queue took %v, want 3 ms plus a little", d)
			}
		}
	})
	for _, engine := range []string{"io_uring", "libaio", "null"} {
		t.Run(engine, func(t *testing.T) {
			const depth = 4
			f := openT(t, path, false)
			bufs := allocBuffers(t, depth, 4096)
			e := faultyEngine(t, engine, Config{File: f, Depth: depth, Buffers: bufs.All()},
				Faults{StallAt: []Range{{Off: 2 * 4096, Len: 4096}}, Stall: 300 * time.Millisecond})
			units := makeUnits(bufs, depth, 4096)
			start := time.Now()
			for _, u := range units {
				if st, err := e.Queue(u); st != Queued || err != nil {
					t.Fatalf("Queue = %v, %v", st, err)
				}
			}
			if err := e.Commit(); err != nil {
				t.Fatal(err)
			}
			var order []int64
			var stalledAt time.Duration
			for len(order) < depth {
				n, err := e.GetEvents(1, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					u := e.Event(i)
					order = append(order, u.Offset)
					if u.Offset == 2*4096 {
						stalledAt = time.Since(start)
					} else if d := time.Since(start); d > 150*time.Millisecond {
						t.Errorf("unit at %d completed after %v: held behind the stalled one", u.Offset, d)
					}
				}
			}
			if order[depth-1] != 2*4096 {
				t.Errorf("completion order %v: the stalled unit (8192) should be last", order)
			}
			if stalledAt < 300*time.Millisecond || stalledAt > time.Second {
				t.Errorf("the stalled unit completed after %v, want 300 ms plus a little", stalledAt)
			}
		})
	}
}

// A GetEvents timeout returns what is due by then, even while units are
// held.
func TestFaultsGetEventsTimeout(t *testing.T) {
	bufs := allocBuffers(t, 2, 4096)
	e := faultyEngine(t, "null", Config{Depth: 2, Buffers: bufs.All()}, Faults{Latency: 400 * time.Millisecond})
	u := &Unit{Op: OpRead, Buf: bufs.Buf(0)}
	if _, err := e.Queue(u); err != nil {
		t.Fatal(err)
	}
	e.Commit()
	start := time.Now()
	n, err := e.GetEvents(1, 0, 50*time.Millisecond)
	if d := time.Since(start); n != 0 || err != nil || d < 50*time.Millisecond || d > 300*time.Millisecond {
		t.Fatalf("GetEvents with a 50 ms timeout = %d, %v after %v", n, err, d)
	}
	n, err = e.GetEvents(1, 0, 0)
	if d := time.Since(start); n != 1 || err != nil || d < 350*time.Millisecond {
		t.Fatalf("GetEvents = %d, %v after %v, want the unit after 400 ms", n, err, d)
	}
}

// Virtual latency moves the unit's timestamps back instead of waiting, and
// the heavy tail has the distribution its doc promises.
func TestFaultsVirtualTail(t *testing.T) {
	for _, depth := range []int{1, 8} {
		bufs := allocBuffers(t, depth, 4096)
		const scale, shape = 100 * time.Microsecond, 1.5
		e := faultyEngine(t, "null", Config{Depth: depth, Buffers: bufs.All()},
			Faults{Seed: 3, Latency: time.Millisecond, TailScale: scale, TailShape: shape, TailMax: time.Second, Virtual: true})
		const n = 20000
		units := makeUnits(bufs, n, 4096)
		for _, u := range units {
			u.Start, u.Issue = 1e15, 1e15
		}
		start := time.Now()
		runUnits(t, e, units, depth)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("depth %d: %d units with >= 1 ms virtual latency took %v", depth, n, d)
		}
		var extra []float64
		for _, u := range units {
			if u.Start != u.Issue {
				t.Fatalf("Start %d and Issue %d moved differently", u.Start, u.Issue)
			}
			d := time.Duration(1e15 - u.Issue)
			if d < time.Millisecond || d > time.Millisecond+time.Second {
				t.Fatalf("virtual delay %v outside [1 ms, 1 s + 1 ms]", d)
			}
			extra = append(extra, float64(d-time.Millisecond))
		}
		sort.Float64s(extra)
		// Lomax quantile: scale*((1-q)^(-1/shape) - 1).
		for _, q := range []float64{0.5, 0.9, 0.99} {
			want := float64(scale) * (math.Pow(1-q, -1/shape) - 1)
			got := extra[int(q*n)]
			if math.Abs(got-want) > 0.1*want {
				t.Errorf("depth %d: tail quantile %v = %v, want %v within 10%%", depth, q, time.Duration(got), time.Duration(want))
			}
		}
		st, _ := InjectedFaults(e)
		if st.Delayed != n {
			t.Errorf("depth %d: %d units delayed, want %d", depth, st.Delayed, n)
		}
	}
}

// DepthLatency grows with the units in flight: a batch of 4 on an
// asynchronous engine gets 1, 2, 3 and 4 times it; a synchronous engine
// always 1 time.
func TestFaultsDepthLatency(t *testing.T) {
	const k = time.Millisecond
	for _, tc := range []struct {
		engine string
		depth  int
		want   []time.Duration
	}{
		{"null", 4, []time.Duration{k, 2 * k, 3 * k, 4 * k, k, 2 * k, 3 * k, 4 * k}},
		{"null", 1, []time.Duration{k, k, k}},
	} {
		bufs := allocBuffers(t, tc.depth, 512)
		e := faultyEngine(t, tc.engine, Config{Depth: tc.depth, Buffers: bufs.All()},
			Faults{DepthLatency: k, Virtual: true})
		units := makeUnits(bufs, len(tc.want), 512)
		runUnits(t, e, units, tc.depth)
		var got []time.Duration
		for _, u := range units {
			got = append(got, time.Duration(-u.Start))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s depth %d: delays (-want +got):\n%s", tc.engine, tc.depth, diff)
		}
	}
}

// Spikes come at their rate.
func TestFaultsSpikes(t *testing.T) {
	bufs := allocBuffers(t, 1, 512)
	e := faultyEngine(t, "null", Config{Buffers: bufs.All()},
		Faults{Seed: 9, SpikeRate: 0.01, Spike: 50 * time.Millisecond, Virtual: true})
	units := makeUnits(bufs, 20000, 512)
	runUnits(t, e, units, 1)
	spikes := 0
	for _, u := range units {
		switch d := -u.Issue; d {
		case 0:
		case int64(50 * time.Millisecond):
			spikes++
		default:
			t.Fatalf("delay %v is neither 0 nor the spike", time.Duration(d))
		}
	}
	if spikes < 140 || spikes > 260 { // 200 expected, sd ~14
		t.Errorf("%d spikes in 20000 units at 1%%", spikes)
	}
}

// The wrapper allocates nothing per unit, failures, short transfers and
// delays included.
func TestFaultsNoAllocs(t *testing.T) {
	path := tempFile(t, 1<<20)
	for _, v := range []struct {
		engine string
		depth  int
	}{{"psync", 1}, {"io_uring", 8}, {"null", 8}} {
		t.Run(v.engine, func(t *testing.T) {
			f := openT(t, path, false)
			bufs := allocBuffers(t, v.depth, 8192)
			e := faultyEngine(t, v.engine, Config{File: f, Depth: v.depth, Buffers: bufs.All()},
				Faults{ErrRate: 0.2, ErrAt: []Range{{0, 1}}, ShortRate: 0.2, SpikeRate: 0.1, Spike: time.Microsecond,
					Latency: time.Microsecond, TailScale: time.Microsecond, TailShape: 2, Virtual: true})
			units := makeUnits(bufs, v.depth, 8192)
			cycle := func() {
				if _, err := drive(e, units); err != nil {
					t.Fatal(err)
				}
			}
			cycle()
			if a := testing.AllocsPerRun(200, cycle); a != 0 {
				t.Errorf("%v allocations per cycle, want 0", a)
			}
		})
	}
}

// The unit table agrees with a map under random puts and deletes.
func TestUnitTable(t *testing.T) {
	var tab unitTable
	tab.init(16)
	units := make([]*Unit, 200)
	for i := range units {
		units[i] = &Unit{}
	}
	want := map[*Unit]int{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		u := units[r.IntN(len(units))]
		if r.IntN(3) == 0 {
			tab.del(u)
			delete(want, u)
		} else {
			tab.put(u).at = i
			want[u] = i
		}
		if tab.n != len(want) {
			t.Fatalf("step %d: %d entries, want %d", i, tab.n, len(want))
		}
		for _, v := range units[:20] {
			s := tab.get(v)
			w, ok := want[v]
			if (s != nil) != ok || (ok && s.at != w) {
				t.Fatalf("step %d: get = %v, want %v %v", i, s, w, ok)
			}
		}
	}
}

func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		want Faults
	}{
		{"empty", "", Faults{}},
		{"errors", "seed=0x10,errno=EILSEQ,err_at=1m+4k:0+512,err_rate=0.1%,err_ops=read:fsync", Faults{
			Seed: 16, Errno: unix.EILSEQ, ErrAt: []Range{{1 << 20, 4096}, {0, 512}}, ErrRate: 0.001,
			ErrOps: OpsOf(OpRead, OpFsync)}},
		{"latency", "latency=250us, depth_latency=1ms, spike=0.01:100ms, tail=1.5:50us:2s, stall_at=8k+4k, stall=20s, virtual=1", Faults{
			Latency: 250 * time.Microsecond, DepthLatency: time.Millisecond, SpikeRate: 0.01, Spike: 100 * time.Millisecond,
			TailShape: 1.5, TailScale: 50 * time.Microsecond, TailMax: 2 * time.Second,
			StallAt: []Range{{8192, 4096}}, Stall: 20 * time.Second, Virtual: true}},
		// fio 3.33 reads "4KiB" as 4000 and "4k" as 4096; so does the spec.
		{"short", "short_rate=0.5,short_align=4KiB,errno=5", Faults{ShortRate: 0.5, ShortAlign: 4000, Errno: unix.EIO}},
		{"short-k", "short_align=4k,err_at=0x1000+1m", Faults{ShortAlign: 4096, ErrAt: []Range{{4096, 1 << 20}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFaults(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			back, err := ParseFaults(got.String())
			if err != nil {
				t.Fatalf("ParseFaults(%q): %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("round trip through %q (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseFaultsErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"bogus=1", "unknown key"},
		{"latency", "not key=value"},
		{"latency=1", "not a duration"},
		{"latency=-1ms", "negative"},
		{"err_rate=2", "probability"},
		{"err_rate=x", "not a number"},
		{"errno=ENOTANERRNO", "unknown errno"},
		{"errno=0", "out of range"},
		{"err_at=4k", "OFFSET+LENGTH"},
		{"err_at=4k+0", "length > 0"},
		{"err_at=9999999999999999t+1", "out of range"},
		{"err_ops=read:open", "unknown operation"},
		{"spike=0.1", "RATE:DURATION"},
		{"tail=1.5", "SHAPE:SCALE"},
		{"tail=0:1ms", "TailShape"},
		{"stall_at=0+1", "without a Stall"},
		{"virtual=2", "not 0 or 1"},
		{"seed=1,seed=2", "given twice"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseFaults(tc.spec)
			if !errors.Is(err, ErrFaultSpec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseFaults(%q) = %v, want ErrFaultSpec and %q", tc.spec, err, tc.want)
			}
		})
	}
}

func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"", "seed=1,err_at=0+4k,err_rate=0.5", "latency=1ms,depth_latency=100us,spike=0.1:2s,tail=1.2:10us:1s",
		"stall_at=1m+1k:2g+1,stall=1h,virtual=1,short_rate=1%,short_align=1k,errno=EIO,err_ops=write"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFaults(s)
		if err != nil {
			if !errors.Is(err, ErrFaultSpec) {
				t.Fatalf("error %v does not wrap ErrFaultSpec", err)
			}
			return
		}
		back, err := ParseFaults(got.String())
		if err != nil {
			t.Fatalf("ParseFaults(%q) read %+v, which prints as %q, which fails: %v", s, got, got.String(), err)
		}
		if !cmp.Equal(got, back) || !slices.Equal(got.ErrAt, back.ErrAt) {
			t.Fatalf("round trip of %q: %+v, then %+v", s, got, back)
		}
	})
}

// BenchmarkFaults measures the wrapper's cost per unit over the null
// engine: draws, the unit table and (at depth 32) holding and releasing
// completions, with virtual latency so nothing waits.
func BenchmarkFaults(b *testing.B) {
	for _, depth := range []int{1, 32} {
		for _, wrap := range []bool{false, true} {
			name := map[bool]string{false: "bare", true: "faults"}[wrap]
			b.Run(name+"/depth"+map[int]string{1: "1", 32: "32"}[depth], func(b *testing.B) {
				bufs := allocBuffers(b, depth, 4096)
				var e Engine = newEngine(b, "null", Config{Depth: depth, Buffers: bufs.All()})
				if wrap {
					var err error
					e, err = WithFaults(e, depth, Faults{ErrRate: 0.001, SpikeRate: 0.01, Spike: time.Millisecond,
						TailScale: time.Microsecond, TailShape: 1.5, ShortRate: 0.001, Virtual: true})
					if err != nil {
						b.Fatal(err)
					}
				}
				units := makeUnits(bufs, depth, 4096)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i += depth {
					if _, err := drive(e, units); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
