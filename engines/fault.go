package engines

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Range is the byte range [Off, Off+Len) of a file or device.
type Range struct {
	Off, Len int64
}

func (r Range) String() string { return fmt.Sprintf("[%d, %d)", r.Off, r.Off+r.Len) }

// overlaps reports whether [off, off+n) shares a byte with r.
func (r Range) overlaps(off, n int64) bool { return n > 0 && off < r.Off+r.Len && r.Off < off+n }

// OpSet is a set of operations (bit 1<<Op).
type OpSet uint8

// OpsOf returns the set of ops.
func OpsOf(ops ...Op) OpSet {
	var s OpSet
	for _, o := range ops {
		s |= 1 << o
	}
	return s
}

// Has reports whether op is in the set.
func (s OpSet) Has(op Op) bool { return s&(1<<op) != 0 }

// Faults say what WithFaults does to the I/Os an engine performs: fail them,
// delay their completion, shorten their transfers. Every random choice is a
// function of Seed and the unit's sequence number (the how-many-th unit the
// engine was given), so the same Seed and the same sequence of I/Os give the
// same faults, run after run, whatever the timing.
type Faults struct {
	Seed uint64

	// Errno is the error a failed unit completes with (Res = -Errno); 0
	// means EIO. A failed unit never reaches the inner engine: a read
	// leaves its buffer as it was, a write changes nothing.
	Errno unix.Errno
	// ErrAt: units of ErrOps overlapping one of these ranges fail, every
	// time (a bad region of the medium).
	ErrAt []Range
	// ErrRate is the probability, in [0, 1], that any other unit of ErrOps
	// fails.
	ErrRate float64
	// ErrOps are the operations that can fail; 0 means reads and writes.
	ErrOps OpSet

	// Latency added to every unit's completion, in addition to what the
	// inner engine takes.
	Latency time.Duration
	// DepthLatency is added once for every unit in flight in the engine
	// when a unit is queued, itself included (those completed but not yet
	// returned by GetEvents count): a device that serves its queue in
	// turn, whose latency grows with the depth. A synchronous engine has
	// one unit in flight. With Virtual, a depth search (latency_target)
	// sees the same latencies run after run.
	DepthLatency time.Duration
	// A unit gets Spike more with probability SpikeRate, in [0, 1].
	SpikeRate float64
	Spike     time.Duration
	// A heavy (Pareto type II, Lomax) tail: every unit gets
	// TailScale*(U^(-1/TailShape) - 1) more, U uniform in (0, 1], so
	// P(extra > x) = (1 + x/TailScale)^-TailShape; the median is
	// TailScale*(2^(1/TailShape) - 1). Capped at TailMax (0 means 10 s).
	// TailShape must be > 0 when TailScale is set; below 2 the variance is
	// infinite, as in measured device tails.
	TailScale time.Duration
	TailShape float64
	TailMax   time.Duration
	// Units overlapping one of StallAt complete Stall later (a region the
	// device takes long to read: a retry, a remap).
	StallAt []Range
	Stall   time.Duration

	// Virtual adds the latency without waiting for it: a completed unit's
	// Start and Issue times (the runner's) are moved back by its delay, so
	// the runner measures the delay in slat-free clat and lat while the run
	// itself does not slow down. A 40-minute stall then costs no time: it
	// tests what the histograms and reports do with it, not how the
	// workload behaves around it (queue depth, throughput, per-second
	// samples). Without Virtual the delay is real time.
	Virtual bool

	// ShortRate is the probability, in [0, 1], that a read or write
	// transfers fewer bytes than asked: a multiple of ShortAlign from
	// ShortAlign to len-ShortAlign (0 means 512, the smallest logical
	// block; with O_DIRECT use the target's logical block size). Units
	// shorter than 2*ShortAlign are never shortened. The short transfer
	// really is short: only its first bytes are read or written.
	ShortRate  float64
	ShortAlign int64
}

// ErrInjected is wrapped by the Explain error of a unit WithFaults failed.
var ErrInjected = errors.New("injected fault")

// ErrAborted is wrapped by the error Queue returns when a synchronous
// unit's injected delay was cut short by the abort flag (Abortable): the
// unit's I/O was performed, but its completion never came; the caller
// counts it as outstanding, as a device that never answered.
var ErrAborted = errors.New("injected delay aborted")

// Abortable is implemented by the engine WithFaults returns, whose
// injected delays are waits in this process that can end early: a stall
// of an hour ends when the caller stops waiting for it, not an hour later.
type Abortable interface {
	// SetAbort makes every wait for an injected delay end within
	// AbortPoll of flag being set (nil: delays run their course): Queue
	// of a synchronous unit then returns an error wrapping ErrAborted,
	// and GetEvents returns what is due so far.
	SetAbort(flag *atomic.Bool)
	// DropDelays makes every unit held for its delay due at once, and
	// later units undelayed: for reaping what is still in flight after
	// giving up on it, before Close.
	DropDelays()
}

// AbortPoll is how often a wait for an injected delay longer than it
// checks the abort flag (Abortable); shorter delays are one nanosleep.
const AbortPoll = 20 * time.Millisecond

// defaultTailMax caps the Pareto tail when Faults.TailMax is 0.
const defaultTailMax = 10 * time.Second

// Validate reports the first field that is out of range.
func (f *Faults) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("engines: %w: faults: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	for _, r := range [...]struct {
		name string
		v    float64
	}{{"ErrRate", f.ErrRate}, {"SpikeRate", f.SpikeRate}, {"ShortRate", f.ShortRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			return bad("%s %v is not a probability in [0, 1]", r.name, r.v)
		}
	}
	for _, d := range [...]struct {
		name string
		v    time.Duration
	}{{"Latency", f.Latency}, {"DepthLatency", f.DepthLatency}, {"Spike", f.Spike}, {"TailScale", f.TailScale}, {"TailMax", f.TailMax}, {"Stall", f.Stall}} {
		if d.v < 0 {
			return bad("%s %v is negative", d.name, d.v)
		}
	}
	if f.TailScale > 0 && !(f.TailShape > 0 && !math.IsInf(f.TailShape, 0)) {
		return bad("TailShape %v must be > 0 with a TailScale", f.TailShape)
	}
	if f.TailScale == 0 && f.TailShape != 0 {
		return bad("TailShape %v without a TailScale", f.TailShape)
	}
	for _, rs := range [...]struct {
		name string
		rs   []Range
	}{{"ErrAt", f.ErrAt}, {"StallAt", f.StallAt}} {
		for _, r := range rs.rs {
			if r.Off < 0 || r.Len <= 0 || r.Off > math.MaxInt64-r.Len {
				return bad("%s range offset %d length %d: want offset >= 0, length > 0", rs.name, r.Off, r.Len)
			}
		}
	}
	if len(f.StallAt) > 0 && f.Stall == 0 {
		return bad("StallAt without a Stall duration")
	}
	if f.ShortAlign < 0 {
		return bad("ShortAlign %d is negative", f.ShortAlign)
	}
	if f.Errno > 4095 {
		return bad("Errno %d is not an errno", uint64(f.Errno))
	}
	if f.ErrOps&^OpsOf(OpRead, OpWrite, OpFsync, OpFdatasync, OpTrim) != 0 {
		return bad("ErrOps %#x holds unknown operations", uint8(f.ErrOps))
	}
	return nil
}

// Zero reports whether f injects nothing.
func (f *Faults) Zero() bool {
	return len(f.ErrAt) == 0 && f.ErrRate == 0 && f.Latency == 0 && f.DepthLatency == 0 && (f.SpikeRate == 0 || f.Spike == 0) &&
		f.TailScale == 0 && (len(f.StallAt) == 0 || f.Stall == 0) && f.ShortRate == 0
}

// FaultStats count what a fault-injecting engine did.
type FaultStats struct {
	Units   uint64        // units the engine was given
	Errors  uint64        // units failed by injection
	Shorts  uint64        // transfers shortened
	Delayed uint64        // units given extra latency
	Delay   time.Duration // latency added, summed
}

// InjectedFaults returns the counts of an engine made by WithFaults; false
// for any other engine.
func InjectedFaults(e Engine) (FaultStats, bool) {
	if f, ok := e.(*faulty); ok {
		return f.stats, true
	}
	return FaultStats{}, false
}

// WithFaults wraps inner, created for depth units in flight, in an engine
// that injects f's faults. The wrapper keeps inner's flags, so the runner
// drives it as it drives inner.
//
// How delays reach the runner's timestamps: a synchronous inner engine
// (FlagSync) performs the unit in Queue, then the wrapper waits out the
// delay before Queue returns, as a slow device holds a synchronous
// system call. For an asynchronous engine the wrapper holds a completed unit
// back until its due time (the inner completion plus the delay) and returns
// it from a later GetEvents; GetEvents waits for the earlier of the inner
// engine's next completion and the earliest due time, so a delayed unit
// occupies its slot, as a slow command holds a device tag, while the other
// units complete on their own time. Injected failures never reach the inner
// engine: they complete (after their delay) from GetEvents like the others.
// The waits are nanosleep(2): a delay lasts at least its value plus the
// thread's timer slack (50 µs by default). With an inner io_uring on a
// kernel without IORING_ENTER_EXT_ARG (Linux < 5.11), a held unit may be
// returned late, when the next inner completion arrives.
//
// Queue, Commit, GetEvents and Event allocate nothing.
func WithFaults(inner Engine, depth int, f Faults) (Engine, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if depth <= 0 {
		depth = 1
	}
	e := &faulty{
		inner: inner,
		f:     f,
		depth: depth,
		sync:  inner.Flags()&FlagSync != 0,
		errno: int64(f.Errno),
		key:   faultMix(f.Seed ^ 0x5eedfa17),
		epoch: time.Now(),
	}
	if e.errno == 0 {
		e.errno = int64(unix.EIO)
	}
	if e.f.ErrOps == 0 {
		e.f.ErrOps = OpsOf(OpRead, OpWrite)
	}
	if e.f.ShortAlign == 0 {
		e.f.ShortAlign = 512
	}
	if e.f.TailMax == 0 {
		e.f.TailMax = defaultTailMax
	}
	e.tab.init(depth + 1) // + the runner's fsync unit
	if !e.sync {
		e.held = make([]heldUnit, 0, depth)
		e.out = make([]*Unit, depth)
	}
	return e, nil
}

// faulty is the engine WithFaults returns.
type faulty struct {
	inner Engine
	f     Faults
	depth int
	sync  bool
	errno int64
	key   uint64 // keys the draws
	seq   uint64 // units drawn for so far
	epoch time.Time

	tab    unitTable  // per-unit state between Queue and completion
	held   []heldUnit // async: completed, waiting for their due time
	out    []*Unit    // async: the last GetEvents batch
	inner0 int        // async: units in the inner engine

	ts, rem unix.Timespec // nanosleep's arguments, here so they do not escape
	stats   FaultStats
	closed  bool
	abort   *atomic.Bool // SetAbort's flag; nil: waits run their course
	// abortFrom is when the last wait began (ns since epoch), for the
	// aborted error's message.
	abortFrom int64
	dropped   bool // DropDelays: nothing is delayed any more
}

var (
	_ Engine    = (*faulty)(nil)
	_ Abortable = (*faulty)(nil)
)

func (e *faulty) SetAbort(flag *atomic.Bool) { e.abort = flag }

func (e *faulty) DropDelays() {
	e.dropped = true
	for i := range e.held {
		e.held[i].due = 0
	}
}

type heldUnit struct {
	u   *Unit
	due int64 // ns since epoch
}

// decision is what happens to one unit.
type decision struct {
	fail  bool
	why   uint8 // injectRange or injectRate
	at    int   // the ErrAt index for injectRange
	delay int64 // ns
	short int   // the shortened length; -1 keeps the unit's
}

const (
	injectRange uint8 = iota + 1
	injectRate
)

// Draw streams: each decision about a unit uses its own uniform number.
const (
	drawErr = iota
	drawSpike
	drawTail
	drawShort
	drawShortLen
)

// u01 returns the k-th uniform number in [0, 1) of unit n.
func (e *faulty) u01(n uint64, k uint64) float64 {
	x := faultMix(e.key + n*0x9e3779b97f4a7c15 + k*0xd1b54a32d192ed03)
	return float64(x>>11) * (1.0 / (1 << 53))
}

// faultMix is SplitMix64's output function: a bijection that scatters bits.
func faultMix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (e *faulty) decide(u *Unit) decision {
	n := e.seq
	e.seq++
	d := decision{short: -1}
	f := &e.f
	ln := int64(len(u.Buf))
	if f.ErrOps.Has(u.Op) {
		for i, r := range f.ErrAt {
			if r.overlaps(u.Offset, ln) {
				d.fail, d.why, d.at = true, injectRange, i
				break
			}
		}
		if !d.fail && f.ErrRate > 0 && e.u01(n, drawErr) < f.ErrRate {
			d.fail, d.why = true, injectRate
		}
	}
	delay := f.Latency
	if f.DepthLatency > 0 {
		inFlight := 1
		if !e.sync {
			inFlight += e.inner0 + len(e.held)
		}
		delay += time.Duration(inFlight) * f.DepthLatency
	}
	if f.SpikeRate > 0 && e.u01(n, drawSpike) < f.SpikeRate {
		delay += f.Spike
	}
	if f.TailScale > 0 {
		v := 1 - e.u01(n, drawTail) // (0, 1]
		extra := float64(f.TailScale) * (math.Pow(v, -1/f.TailShape) - 1)
		if !(extra < float64(f.TailMax)) { // NaN and +Inf too
			extra = float64(f.TailMax)
		}
		delay += time.Duration(extra)
	}
	if f.Stall > 0 {
		for _, r := range f.StallAt {
			if r.overlaps(u.Offset, ln) {
				delay += f.Stall
				break
			}
		}
	}
	d.delay = int64(delay)
	if e.dropped {
		d.delay = 0
	}
	a := f.ShortAlign
	if !d.fail && f.ShortRate > 0 && (u.Op == OpRead || u.Op == OpWrite) && ln >= 2*a &&
		e.u01(n, drawShort) < f.ShortRate {
		blocks := ln/a - 1 // lengths a .. (ln/a - 1)*a, all shorter than ln
		d.short = int(a * (1 + int64(e.u01(n, drawShortLen)*float64(blocks))))
	}
	return d
}

func (e *faulty) Name() string { return e.inner.Name() + "+faults" }

func (e *faulty) fixedBuffers() bool { return FixedBuffers(e.inner) }

func (e *faulty) Flags() Flags { return e.inner.Flags() }

func (e *faulty) now() int64 { return int64(time.Since(e.epoch)) }

func (e *faulty) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	if !e.sync && e.inner0+len(e.held) >= e.depth {
		return Busy, nil
	}
	d := e.decide(u)
	if e.tab.n > 0 {
		e.tab.del(u) // state of the unit's previous I/O, kept for Explain
	}
	if e.sync {
		return e.queueSync(u, d)
	}
	s := e.tab.put(u)
	s.delay, s.full, s.why, s.at = d.delay, -1, 0, 0
	e.stats.Units++
	if d.fail {
		u.Res = -e.errno
		s.why, s.at = d.why, d.at
		e.stats.Errors++
		e.finish(u, s, e.now())
		return Queued, nil
	}
	if d.short >= 0 {
		s.full = len(u.Buf)
		u.Buf = u.Buf[:d.short]
	}
	st, err := e.inner.Queue(u)
	switch {
	case err != nil || st == Busy:
		if s.full >= 0 {
			u.Buf = u.Buf[:s.full]
		}
		e.tab.del(u)
		e.seq-- // the unit comes again and must draw the same
		e.stats.Units--
		return st, err
	case st == Completed:
		e.finish(u, s, e.now())
		return Queued, nil
	}
	e.inner0++
	return Queued, nil
}

// queueSync performs a unit through a synchronous inner engine and waits
// out its delay.
func (e *faulty) queueSync(u *Unit, d decision) (Status, error) {
	e.stats.Units++
	switch {
	case d.fail:
		u.Res = -e.errno
		s := e.tab.put(u)
		s.why, s.at, s.full = d.why, d.at, -1
		e.stats.Errors++
	case d.short >= 0:
		full := len(u.Buf)
		u.Buf = u.Buf[:d.short]
		st, err := e.inner.Queue(u)
		u.Buf = u.Buf[:full]
		if err != nil {
			e.seq--
			e.stats.Units--
			return st, err
		}
		e.stats.Shorts++
	default:
		st, err := e.inner.Queue(u)
		if err != nil {
			e.seq--
			e.stats.Units--
			return st, err
		}
	}
	if d.delay > 0 {
		if !e.delayed(u, d.delay) && e.sleep(d.delay) {
			return Busy, fmt.Errorf("engines: %s: %s offset %d len %d: %w after %v of its %v delay",
				e.Name(), u.Op, u.Offset, len(u.Buf), ErrAborted, time.Duration(e.now()-e.abortFrom), time.Duration(d.delay))
		}
	}
	return Completed, nil
}

// delayed counts a unit's injected delay; on a virtual clock it moves
// the unit's start and issue back by it instead and returns true, the
// delay being then taken, not waited for.
func (e *faulty) delayed(u *Unit, delay int64) (virtual bool) {
	e.stats.Delayed++
	e.stats.Delay += time.Duration(delay)
	if !e.f.Virtual {
		return false
	}
	u.Start -= delay
	u.Issue -= delay
	return true
}

// finish takes a unit the inner engine completed (or that failed by
// injection) at t and holds it until its due time.
func (e *faulty) finish(u *Unit, s *unitState, t int64) {
	if s.full >= 0 {
		u.Buf = u.Buf[:s.full]
		e.stats.Shorts++
	}
	due := t
	if s.delay > 0 && !e.delayed(u, s.delay) && !e.dropped {
		due += s.delay
	}
	if s.why == 0 {
		e.tab.del(u)
	}
	e.held = append(e.held, heldUnit{u: u, due: due})
}

func (e *faulty) Commit() error {
	if e.closed {
		return ErrClosed
	}
	return e.inner.Commit()
}

func (e *faulty) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	if e.sync {
		return e.inner.GetEvents(min, max, timeout)
	}
	min, max = eventBounds(min, max, e.depth, e.inner0+len(e.held))
	var deadline int64
	if timeout > 0 {
		deadline = e.now() + int64(timeout)
	}
	n := 0
	for {
		// What the inner engine has already completed, without waiting.
		if e.inner0 > 0 {
			if err := e.reapInner(0, 0); err != nil {
				return n, err
			}
		}
		now := e.now()
		n = e.takeDue(now, n, max)
		if n >= min || (deadline != 0 && now >= deadline) {
			return n, nil
		}
		// Wait for the earlier of the next inner completion, the earliest
		// due time and the deadline.
		wait, limited := int64(0), false
		for _, h := range e.held {
			if w := h.due - now; !limited || w < wait {
				wait, limited = w, true
			}
		}
		if deadline != 0 && (!limited || deadline-now < wait) {
			wait, limited = deadline-now, true
		}
		switch {
		case limited && wait <= 0:
			// due already: take it on the next round
		case e.inner0 > 0:
			if !limited {
				wait = 0 // no limit
			}
			if err := e.reapInner(1, wait); err != nil {
				return n, err
			}
		case limited:
			if e.sleep(wait) {
				return n, nil // the caller stopped waiting
			}
		default:
			return n, nil // nothing in flight and nothing held
		}
	}
}

// reapInner moves completions of the inner engine into held, waiting for
// at least min of them for at most wait ns (wait <= 0: no limit).
func (e *faulty) reapInner(min int, wait int64) error {
	k, err := e.inner.GetEvents(min, e.inner0, time.Duration(wait))
	t := e.now()
	for i := range k {
		u := e.inner.Event(i)
		e.inner0--
		s := e.tab.get(u)
		if s == nil {
			e.held = append(e.held, heldUnit{u: u, due: t}) // not queued through us: pass on
			continue
		}
		e.finish(u, s, t)
	}
	if err != nil {
		return fmt.Errorf("engines: %s+faults: %w", e.inner.Name(), err)
	}
	return nil
}

// takeDue moves held units due by now into out[n:max] in their order.
func (e *faulty) takeDue(now int64, n, max int) int {
	keep := e.held[:0]
	for _, h := range e.held {
		if h.due <= now && n < max {
			e.out[n] = h.u
			n++
			continue
		}
		keep = append(keep, h)
	}
	clear(e.held[len(keep):])
	e.held = keep
	return n
}

func (e *faulty) Event(i int) *Unit {
	if e.sync {
		return e.inner.Event(i)
	}
	return e.out[i]
}

// Explain names the fault for an injected failure and defers to the inner
// engine for real ones.
func (e *faulty) Explain(u *Unit) error {
	if u.Res >= 0 {
		return nil
	}
	s := e.tab.get(u)
	if s == nil || s.why == 0 {
		return e.inner.Explain(u)
	}
	why := fmt.Sprintf("drawn at ErrRate %v", e.f.ErrRate)
	if s.why == injectRange {
		why = "in ErrAt " + e.f.ErrAt[s.at].String()
	}
	what := fmt.Sprintf("%s offset %d len %d", u.Op, u.Offset, len(u.Buf))
	if u.Op == OpFsync || u.Op == OpFdatasync {
		what = u.Op.String()
	}
	return fmt.Errorf("engines: %s: %s: %w (%s): %w", e.Name(), what, ErrInjected, why, unix.Errno(-u.Res))
}

// Close closes the inner engine; held units are dropped.
func (e *faulty) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	clear(e.held)
	e.held = e.held[:0]
	return e.inner.Close()
}

// sleep waits ns nanoseconds on this thread (nanosleep(2), resumed after
// signals): the runner's goroutine is locked to its thread and has nothing
// else to do, and nanosleep is more precise than the Go timer. A wait
// longer than AbortPoll is cut into naps of at most AbortPoll up to its
// due time, between which the abort flag is checked; sleep returns true
// when the flag ended it.
func (e *faulty) sleep(ns int64) bool {
	if e.abort == nil {
		e.nanosleep(ns)
		return false
	}
	e.abortFrom = e.now()
	if e.abort.Load() {
		return true
	}
	if ns <= int64(AbortPoll) {
		e.nanosleep(ns)
		return false
	}
	due := e.abortFrom + ns
	for {
		left := due - e.now()
		if left <= 0 {
			return false
		}
		e.nanosleep(min(left, int64(AbortPoll)))
		if e.abort.Load() {
			return true
		}
	}
}

// nanosleep waits ns nanoseconds, resumed after signals.
func (e *faulty) nanosleep(ns int64) {
	e.ts = unix.NsecToTimespec(ns)
	for {
		_, _, errno := unix.Syscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&e.ts)), uintptr(unsafe.Pointer(&e.rem)), 0)
		if errno != unix.EINTR {
			return
		}
		e.ts = e.rem
	}
}

// unitState is what the wrapper remembers about a unit between Queue and
// completion, and about an injected failure until the unit is queued again
// (for Explain).
type unitState struct {
	u     *Unit
	delay int64 // ns
	full  int   // Buf's length before shortening; -1 if not shortened
	why   uint8 // injectRange, injectRate, or 0: not injected
	at    int   // the ErrAt index for injectRange
}

// unitTable maps units to their state: open addressing with linear probing
// over a power-of-two array, keyed by the unit's address (Go does not move
// heap objects). Sized at setup; it grows only if a caller keeps more
// distinct units than it said (allocation then, never otherwise).
type unitTable struct {
	slots []unitState
	shift uint
	n     int
}

func (t *unitTable) init(units int) {
	size := 8
	for size < 4*units {
		size *= 2
	}
	t.slots = make([]unitState, size)
	t.shift = uint(64 - log2(size))
	t.n = 0
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

func (t *unitTable) home(u *Unit) int {
	return int(uint64(uintptr(unsafe.Pointer(u))) * 0x9e3779b97f4a7c15 >> t.shift)
}

func (t *unitTable) get(u *Unit) *unitState {
	mask := len(t.slots) - 1
	for i := t.home(u); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.u == u {
			return s
		}
		if s.u == nil {
			return nil
		}
	}
}

// put returns u's slot, new or existing.
func (t *unitTable) put(u *Unit) *unitState {
	if s := t.get(u); s != nil {
		return s
	}
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]unitState, 2*len(old))
		t.shift--
		t.n = 0
		for i := range old {
			if old[i].u != nil {
				*t.put(old[i].u) = old[i]
			}
		}
	}
	mask := len(t.slots) - 1
	i := t.home(u)
	for t.slots[i].u != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = unitState{u: u}
	t.n++
	return &t.slots[i]
}

// del removes u, shifting later entries of its probe run back so lookups
// never stop early at the hole.
func (t *unitTable) del(u *Unit) {
	mask := len(t.slots) - 1
	i := t.home(u)
	for {
		if t.slots[i].u == nil {
			return
		}
		if t.slots[i].u == u {
			break
		}
		i = (i + 1) & mask
	}
	t.n--
	for {
		t.slots[i] = unitState{}
		j := i
		for {
			j = (j + 1) & mask
			if t.slots[j].u == nil {
				return
			}
			h := t.home(t.slots[j].u)
			// Move slot j back to i unless its home lies cyclically in (i, j].
			if (j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j)) {
				t.slots[i] = t.slots[j]
				i = j
				break
			}
		}
	}
}
