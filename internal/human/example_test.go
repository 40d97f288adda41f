package human_test

import (
	"fmt"
	"time"

	"stortest.dev/internal/human"
)

func ExampleLatency() {
	for _, ns := range []float64{812, 66050, 2_410_000, 1.2e9, 999_999, 3600e9} {
		fmt.Println(human.Latency(ns))
	}
	fmt.Println(human.Duration(31200 * time.Nanosecond))
	// Output:
	// 812ns
	// 66.05µs
	// 2.41ms
	// 1.2s
	// 1ms
	// 3600s
	// 31.2µs
}

func ExampleBytes() {
	for _, v := range []float64{512, 4096, 7.8125 * (1 << 20), 41873, 171.37 * (1 << 20), 1.5 * (1 << 30), 1048575.9} {
		fmt.Println(human.Bytes(v))
	}
	fmt.Println(human.BW(49.3 * (1 << 20)))
	// Output:
	// 512B
	// 4KiB
	// 7.81MiB
	// 40.89KiB
	// 171.4MiB
	// 1.5GiB
	// 1MiB
	// 49.3MiB/s
}

func ExampleCount() {
	for _, v := range []float64{950, 12.54, 41_900, 1_234_567, 999.6, 0} {
		fmt.Println(human.Count(v))
	}
	// Output:
	// 950
	// 12.5
	// 41.9k
	// 1.23M
	// 1k
	// 0
}
