package stortest

import (
	"strings"
	"testing"
	"time"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// A device that stops answering fails the test, naming the I/Os it never
// answered, instead of hanging it: an injected stall of an hour, far past
// the test's own timeout, ends at the runtime plus the grace period.
func TestRunFailsOnStall(t *testing.T) {
	f := newFake(t)
	defer f.finish()
	var r *Result
	start := time.Now()
	f.run(func(tb testing.TB) {
		dev := File(tb, 4<<20)
		r = Run(tb, dev, workload.Job{Name: "hung", RW: workload.Read, BlockSize: 4096, Runtime: 500 * time.Millisecond, TimeBased: true},
			WithOptions(workload.Options{Grace: 500 * time.Millisecond,
				Faults: &engines.Faults{StallAt: []engines.Range{{Off: 1 << 20, Len: 1 << 20}}, Stall: time.Hour}}))
	})
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("Run took %v for a 0.5 s runtime and a 0.5 s grace period", took)
	}
	if r == nil || len(f.fatals) > 0 {
		t.Fatalf("fatals %q", f.fatals)
	}
	if len(f.errors) != 1 || !strings.Contains(f.errors[0], "hung: clone 0 failed: 1 I/O still outstanding after 500ms runtime + 500ms grace") ||
		!strings.Contains(f.errors[0], "read of 4096 bytes at offset 1048576: ") {
		t.Fatalf("errors %q: want the stall named", f.errors)
	}
	if got := r.Result.Jobs[0].Outstanding; len(got) != 1 || got[0].Offset != 1<<20 {
		t.Errorf("outstanding %+v", got)
	}
}
