package faults_test

import (
	"fmt"
	"syscall"
	"time"

	"stortest.dev/engines"
	"stortest.dev/faults"
)

// Rules apply in order; the first that matches a request decides.
func ExampleRules_Match() {
	rules := faults.Rules{
		{Range: engines.Range{Off: 4096, Len: 4096}, Ops: engines.OpsOf(engines.OpRead), Errno: syscall.EIO},
		{Range: engines.Range{Off: 0, Len: 1 << 20}, Stall: 2 * time.Second},
	}
	for _, req := range []struct {
		op     engines.Op
		off, n int64
	}{{engines.OpRead, 4096, 4096}, {engines.OpWrite, 4096, 4096}, {engines.OpRead, 2 << 20, 4096}} {
		if r, ok := rules.Match(req.op, req.off, req.n); ok {
			fmt.Printf("%s %d: %s\n", req.op, req.off, r)
		} else {
			fmt.Printf("%s %d: served\n", req.op, req.off)
		}
	}
	// Output:
	// read 4096: read [4096, 8192): EIO
	// write 4096: read,write [0, 1048576): stall 2s
	// read 2097152: served
}
