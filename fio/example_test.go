package fio_test

import (
	"fmt"
	"strings"
	"time"

	"stortest.dev/fio"
)

// Sizes read as fio 3.33 reads them with its default kb_base=1024: the
// IEC spellings ("KiB") are powers of 1000 there.
func ExampleParseSize() {
	for _, s := range []string{"4k", "4ki", "4KiB", "1m", "0x1000"} {
		n, err := fio.ParseSize(s)
		fmt.Println(s, n, err)
	}
	_, err := fio.ParseSize("1.5m")
	fmt.Println(err)
	// Output:
	// 4k 4096 <nil>
	// 4ki 4096 <nil>
	// 4KiB 4000 <nil>
	// 1m 1048576 <nil>
	// 0x1000 4096 <nil>
	// invalid size "1.5m": fractions are not allowed
}

func ExampleParseTime() {
	d, err := fio.ParseTime("500ms", time.Second)
	fmt.Println(d, err, fio.FormatTime(90*time.Second))
	// Output: 500ms <nil> 90s
}

// fio's JSON as fio prints it: a note before the document, and a nan
// where a slope had no samples.
func ExampleDecodeJSON() {
	out := "fio: verification read phase will never start because write phase uses all of runtime\n" +
		`{"jobs": [{"jobname": "j", "steadystate": {"slope": -nan}}]}`
	var doc struct {
		Jobs []struct {
			Name        string `json:"jobname"`
			SteadyState struct {
				Slope *float64 `json:"slope"`
			} `json:"steadystate"`
		} `json:"jobs"`
	}
	err := fio.DecodeJSON(strings.NewReader(out), "fio.json", &doc)
	fmt.Println(doc.Jobs[0].Name, doc.Jobs[0].SteadyState.Slope == nil, err)
	// Output: j true <nil>
}
