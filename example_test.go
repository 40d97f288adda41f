package stortest_test

import (
	"fmt"

	"stortest.dev"
)

// A latency selector names a statistic and, optionally, one direction.
func ExampleLatency() {
	for _, l := range []stortest.Latency{stortest.Clat, stortest.Clat.Read(), stortest.Lat.Write(), stortest.Slat.Trim()} {
		fmt.Println(l)
	}
	// Output:
	// clat
	// clat read
	// lat write
	// slat trim
}
