package clock

import (
	"testing"
	"time"
)

// Run with -benchmem: every benchmark here must report 0 allocs/op.

var benchSink int64

func BenchmarkNow(b *testing.B) {
	cal, _ := Init()
	b.Logf("source: %v", cal.Source)
	var s int64
	for b.Loop() {
		s += Now()
	}
	benchSink = s
}

// BenchmarkNowRuntime is Now with the runtime source forced.
func BenchmarkNowRuntime(b *testing.B) {
	Init()
	old := st
	install(choose("runtime", host))
	b.Cleanup(func() { install(old) })
	var s int64
	for b.Loop() {
		s += Now()
	}
	benchSink = s
}

// BenchmarkNowUnordered: Now without the ordering.
func BenchmarkNowUnordered(b *testing.B) {
	Init()
	var s int64
	for b.Loop() {
		s += NowUnordered()
	}
	benchSink = s
}

// BenchmarkTimeNow: time.Now reads the wall and the monotonic clock.
func BenchmarkTimeNow(b *testing.B) {
	var s int64
	for b.Loop() {
		s += time.Now().UnixNano()
	}
	benchSink = s
}

// BenchmarkTimeSince: the monotonic clock alone, what the runtime source costs.
func BenchmarkTimeSince(b *testing.B) {
	epoch := time.Now()
	var s int64
	for b.Loop() {
		s += int64(time.Since(epoch))
	}
	benchSink = s
}

// BenchmarkRDTSC is the raw, unordered counter read (RDTSC on amd64, MRS
// CNTVCT_EL0 without ISB on arm64): the floor under Now.
func BenchmarkRDTSC(b *testing.B) {
	var s uint64
	for b.Loop() {
		s += readCounterRaw()
	}
	benchSink = int64(s)
}

// BenchmarkCounter is the ordered read Now uses.
func BenchmarkCounter(b *testing.B) {
	var s uint64
	for b.Loop() {
		s += readCounter()
	}
	benchSink = int64(s)
}
