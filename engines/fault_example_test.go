package engines_test

import (
	"errors"
	"fmt"

	"stortest.dev/engines"
)

// A fault-injecting engine fails the units that touch a bad region, and
// says so; the same spec always injects the same faults.
func ExampleWithFaults() {
	f, err := engines.ParseFaults("seed=1,err_at=8k+4k,virtual=1,latency=2ms")
	if err != nil {
		panic(err)
	}
	inner, err := engines.New("null", engines.Config{})
	if err != nil {
		panic(err)
	}
	e, err := engines.WithFaults(inner, 1, f)
	if err != nil {
		panic(err)
	}
	defer e.Close()
	buf := make([]byte, 4096)
	for off := int64(0); off < 16384; off += 4096 {
		u := &engines.Unit{Op: engines.OpRead, Offset: off, Buf: buf, BufIndex: -1}
		if _, err := e.Queue(u); err != nil {
			panic(err)
		}
		// Virtual latency moves the unit's start back instead of waiting.
		fmt.Printf("offset %5d: res %5d, latency %v", off, u.Res, -u.Start)
		if err := e.Explain(u); errors.Is(err, engines.ErrInjected) {
			fmt.Print(": ", err)
		}
		fmt.Println()
	}
	// Output:
	// offset     0: res  4096, latency 2000000
	// offset  4096: res  4096, latency 2000000
	// offset  8192: res    -5, latency 2000000: engines: null+faults: read offset 8192 len 4096: injected fault (in ErrAt [8192, 12288)): input/output error
	// offset 12288: res  4096, latency 2000000
}
