package latency_test

import (
	"fmt"

	"stortest.dev/latency"
)

func Example() {
	h := latency.NewFio()
	for i := uint64(1); i <= 1000; i++ {
		h.Add(i * 1000) // 1 us .. 1 ms
	}
	h.Add(25e9) // a 25 s stall: past fio's 17.18 s ceiling

	ps := []float64{50, 99, 99.9}
	for i, v := range h.Percentiles(ps) {
		fmt.Printf("p%s = %d ns\n", latency.PercentileKey(ps[i]), v)
	}
	fmt.Printf("clipped %d, max %d ns\n", h.Clipped(), h.Max())

	long := latency.New(latency.MustLayout(latency.LongGroups))
	long.Add(25e9)
	fmt.Printf("36 groups: p100 = %.1f s\n", float64(long.Percentile(100))/1e9)
	// Output:
	// p50.000000 = 501760 ns
	// p99.000000 = 987136 ns
	// p99.900000 = 1003520 ns
	// clipped 1, max 25000000000 ns
	// 36 groups: p100 = 25.1 s
}
