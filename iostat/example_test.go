package iostat_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"stortest.dev/iostat"
)

// Two saved copies of /proc/diskstats, 2.5 s apart, give the same
// figures sysstat's iostat -x would print for that interval.
func Example() {
	before := `   8       0 sda 1000 10 16000 2000 500 0 4000 3000 0 1500 5000 0 0 0 0 100 50`
	after := `   8       0 sda 1500 20 24000 2600 800 25 6400 4200 1 2500 7600 0 0 0 0 110 55`
	a, _, err := iostat.ParseDiskstats(strings.NewReader(before), "before")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _, err := iostat.ParseDiskstats(strings.NewReader(after), "after")
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := iostat.NewDeltaInterval(iostat.Snapshot{Disks: a}, iostat.Snapshot{Disks: b}, 2500*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	sda, _ := d.Disk("sda")
	e := sda.Ext()
	fmt.Printf("raw: %d reads, %d writes, busy %d ms\n", sda.Diff.ReadIOs, sda.Diff.WriteIOs, sda.Diff.IOTicks)
	fmt.Printf("r/s %.2f w/s %.2f rkB/s %.2f r_await %.2f w_await %.2f aqu-sz %.2f %%util %.2f\n",
		e.RPerS, e.WPerS, e.RkBPerS, e.RAwait, e.WAwait, e.AquSz, e.Util)

	w := iostat.NewTextWriter(os.Stdout, iostat.Host{Sysname: "Linux", Release: "6.18", Nodename: "host", Machine: "x86_64", CPUs: 2,
		Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}, iostat.ReportOptions{})
	if err := w.Write(d, time.Time{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// raw: 500 reads, 300 writes, busy 1000 ms
	// r/s 200.00 w/s 120.00 rkB/s 1600.00 r_await 1.20 w_await 4.00 aqu-sz 1.04 %util 40.00
	// Linux 6.18 (host) 	01/02/26 	_x86_64_	(2 CPU)
	//
	// Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn    kB_dscd
	// sda             320.00      1600.00       480.00         0.00       4000       1200          0
}
