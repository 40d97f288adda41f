package engines_test

import (
	"fmt"

	"stortest.dev/engines"
)

// The null engine moves no data, which makes the driving loop visible: at
// depth > 1 units wait for Commit and come back from GetEvents.
func Example() {
	e, err := engines.New("null", engines.Config{Depth: 4})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	fmt.Println(e.Name(), e.Flags())

	buf := make([]byte, 4096)
	units := make([]engines.Unit, 5)
	for i := range units {
		units[i] = engines.Unit{Op: engines.OpRead, Offset: int64(i) * 4096, Buf: buf, BufIndex: -1, Index: i}
		st, err := e.Queue(&units[i])
		fmt.Printf("queue %d: %v %v\n", i, st, err)
	}
	if err := e.Commit(); err != nil {
		panic(err)
	}
	n, err := e.GetEvents(1, 0, 0)
	fmt.Println("reaped", n, err)
	for i := range n {
		u := e.Event(i)
		fmt.Printf("unit %d: %v offset %d res %d\n", u.Index, u.Op, u.Offset, u.Res)
	}
	// Output:
	// null commit|noio|noalign
	// queue 0: queued <nil>
	// queue 1: queued <nil>
	// queue 2: queued <nil>
	// queue 3: queued <nil>
	// queue 4: busy <nil>
	// reaped 4 <nil>
	// unit 0: read offset 0 res 4096
	// unit 1: read offset 4096 res 4096
	// unit 2: read offset 8192 res 4096
	// unit 3: read offset 12288 res 4096
}
