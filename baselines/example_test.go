package baselines_test

import (
	"fmt"
	"os"
	"path/filepath"

	"stortest.dev/baselines"
)

// Seed a baseline from a recorded fio json+ output, store it where a test
// would find it, and read it back.
func Example() {
	f, err := os.Open(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	bs, err := baselines.ImportFio(f, "psync-randrw.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "baselines")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	b := bs[0]
	path := baselines.Path(dir, "TestRandRW/psync", b.Name)
	if err := baselines.Create(path, b); err != nil {
		fmt.Println(err)
		return
	}
	rel, _ := filepath.Rel(dir, path)
	fmt.Println(filepath.ToSlash(rel))

	back, err := baselines.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range back.Dirs {
		fmt.Printf("%s: %s IOPS, %s, clat p99 %s over %d I/Os (%d buckets)\n", d.Name,
			baselines.FormatIOPS(d.IOPS), baselines.FormatBW(d.BW), baselines.FormatNS(float64(d.Clat.P99)), d.Clat.N, len(d.Clat.Hist.Bins))
	}
	fmt.Println(back.Fingerprint.Engine, back.Fingerprint.Version)
	// Output:
	// TestRandRW/psync/psync-randrw.json
	// read: 12.6k IOPS, 49.33MiB/s, clat p99 138.24µs over 37898 I/Os (241 buckets)
	// write: 5.4k IOPS, 21.09MiB/s, clat p99 11.33µs over 16204 I/Os (230 buckets)
	// psync fio-3.33
}

// A firmware update shows as a change of the fingerprint: reported, not
// an error.
func ExampleFingerprint_Diff() {
	old := baselines.Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Example SSD", Firmware: "1.2", Kernel: "6.17.0"}
	cur := old
	cur.Firmware, cur.Kernel = "1.3", "6.18.0"
	for _, c := range old.Diff(cur) {
		fmt.Println(c)
	}
	// Output:
	// firmware 1.2 -> 1.3
	// kernel 6.17.0 -> 6.18.0
}

// Subtests become directories; names are made safe file names.
func ExamplePath() {
	fmt.Println(baselines.Path(baselines.DefaultDir, "TestQD/qd=32", "randread 4k"))
	// Output:
	// testdata/baselines/TestQD/qd=32/randread%204k.json
}
