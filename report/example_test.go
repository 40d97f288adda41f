package report_test

import (
	"fmt"
	"os"
	"time"

	"stortest.dev/report"
)

// One package's suite with one failing workload run.
func Example() {
	s := report.Suite{
		Name: "example.com/storage/nvme",
		Cases: []report.Case{{
			Classname:   "TestRandRead4K",
			Name:        "randread-4k",
			Time:        61234567 * time.Microsecond,
			Properties:  []report.Property{{Name: "read.iops", Value: "41873"}},
			Output:      "randread-4k: IOPS=41.9k\n",
			Attachments: []string{"/ci/out/TestRandRead4K/randread-4k.fio.json"},
			Failures: []report.Failure{{
				Message: "randread-4k: clat p99.9 read 2.41ms > limit 2ms",
				Type:    "limit",
			}},
		}},
	}
	if err := report.Write(os.Stdout, s); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites tests="1" failures="1" errors="0" time="61.235">
	// 	<testsuite name="example.com/storage/nvme" tests="1" failures="1" errors="0" skipped="0" time="61.235">
	// 		<properties>
	// 			<property name="TestRandRead4K/randread-4k/read.iops" value="41873"/>
	// 		</properties>
	// 		<testcase classname="TestRandRead4K" name="randread-4k" time="61.235">
	// 			<failure message="randread-4k: clat p99.9 read 2.41ms &gt; limit 2ms" type="limit"/>
	// 			<system-out>randread-4k: IOPS=41.9k
	// [[ATTACHMENT|/ci/out/TestRandRead4K/randread-4k.fio.json]]
	// </system-out>
	// 		</testcase>
	// 	</testsuite>
	// </testsuites>
}
