package steady_test

import (
	"fmt"
	"time"

	"stortest.dev/steady"
)

// A job warms up for a few seconds, then runs at a steady 1000 IOPS with
// a little jitter; fio's iops_slope:0.3% over a 5-second window stops it
// once the trend has flattened.
func Example() {
	d, err := steady.NewDetector(steady.Config{
		Criteria: steady.All(steady.MustParse("iops_slope:0.3%")),
		Window:   5 * time.Second,
	})
	if err != nil {
		panic(err)
	}
	iops := []uint64{200, 500, 800, 950, 1000, 1002, 998, 1001, 999, 1000}
	for _, v := range iops {
		verdict := d.Add(steady.Sample{IOPS: v, BW: v * 4096})
		if verdict.Stop {
			fmt.Println(verdict.Reason())
			break
		}
	}
	f, _ := d.Fio()
	fmt.Printf("ss=%s attained=%d criterion=%s slope=%s\n", f.SS, f.Attained, f.Criterion, steady.FormatFloat(f.Slope))
	// Output:
	// sample 8 at 9s: steady state: iops_slope -0.03% < 0.3% (mean 1000, max deviation 2, slope -0.3/s): holds
	// ss=iops_slope:0.300000% attained=1 criterion=-0.030000% slope=-0.300000
}

// Several criteria must all hold; after attainment the detector keeps
// judging and reports a loss of steady state and its end.
func ExampleDetector_losses() {
	d, _ := steady.NewDetector(steady.Config{
		Criteria: steady.MustParseSet("iops:10%, clat_p99:20%"),
		Window:   3 * time.Second,
		Continue: true,
	})
	fmt.Println("latencies needed:", d.Latencies())
	p99 := []time.Duration{100 * time.Microsecond}
	series := []struct {
		iops uint64
		p99  time.Duration
	}{{1000, 100}, {1010, 105}, {990, 98}, {1000, 400}, {1000, 101}, {1000, 99}, {1005, 100}, {995, 102}}
	for _, s := range series {
		p99[0] = s.p99 * time.Microsecond
		v := d.Add(steady.Sample{IOPS: s.iops, Lat: p99})
		if v.Event != steady.NoEvent {
			fmt.Printf("%s at sample %d\n", v.Event, v.Sample)
		}
	}
	for _, l := range d.Losses() {
		fmt.Printf("out of steady state from sample %d to %d: %s reached %.1f%% (limit %g%%)\n",
			l.Start, l.End, d.Config().Criteria[l.Criterion].Name(), l.Worst, l.Limit)
	}
	// Output:
	// latencies needed: [clat_p99]
	// attained at sample 2
	// lost at sample 3
	// regained at sample 6
	// out of steady state from sample 3 to 6: clat_p99 reached 100.3% (limit 20%)
}
