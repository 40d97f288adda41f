package clock_test

import (
	"fmt"
	"time"

	"stortest.dev/clock"
)

func Example() {
	// Calibrate up front (about 65 ms) so the first timed I/O does not pay for it.
	clock.Init()

	start := clock.Now()
	time.Sleep(time.Millisecond) // the work being timed
	end := clock.Now()

	fmt.Println("ordered:", end >= start)
	src := clock.Info().Source
	fmt.Println("known source:", src == clock.TSC || src == clock.Runtime)
	// Output:
	// ordered: true
	// known source: true
}

func ExampleConverter() {
	// A 2.5 GHz counter: 2,500,000 ticks per millisecond.
	c, err := clock.NewConverter(2_500_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Mult = floor(2^22 * 1e6 / 2.5e6) = 1677721, 0.36 ppm below the exact
	// 1677721.6, and the conversion rounds down: one millisecond of ticks reads
	// 999999 ns, one hour 1.3 ms short.
	fmt.Println(c.Nanos(2_500_000))
	fmt.Println(c.Nanos(2_500_000 * 3_600_000))
	// Output:
	// cpm=2500000 mult=1677721 shift=22 max_cycles_shift=43
	// 999999
	// 3599998712539
}
