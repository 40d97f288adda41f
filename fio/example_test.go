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

// A job file's sections and options, with the line of each.
func ExampleParseJobFile() {
	job := `; 4k random reads
[global]
ioengine=libaio
direct=1

[randread]
rw=randread
bs=4k   # a comment
`
	jf, err := fio.ParseJobFile(strings.NewReader(job), "randread.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range jf.Sections {
		fmt.Printf("[%s] %v global=%v\n", s.Name, s.Pos, s.Global())
		for _, e := range s.Entries {
			fmt.Printf("  %s=%s %v\n", e.Key, e.Value, e.Pos)
		}
	}
	_, err = fio.ParseJobFile(strings.NewReader("bs=4k\n[a]\n"), "bad.fio")
	fmt.Println(err)
	// Output:
	// [global] randread.fio:2 global=true
	//   ioengine=libaio randread.fio:3
	//   direct=1 randread.fio:4
	// [randread] randread.fio:6 global=false
	//   rw=randread randread.fio:7
	//   bs=4k randread.fio:8
	// bad.fio:1: option "bs=4k" outside a [job] or [global] section
}

// The lines one at a time, ${NAME} from a map rather than the
// environment, includes left to the caller.
func ExampleLexer_Tokens() {
	vars := map[string]string{"SIZE": "1g"}
	l := fio.Lexer{Getenv: func(k string) string { return vars[k] }, KeepIncludes: true}
	job := "[seq]\nsize=${SIZE}\ninclude common.fio\ntime_based\n"
	for tok, err := range l.Tokens(strings.NewReader(job), "seq.fio") {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v %s %q %q has=%v (%s)\n", tok.Pos, tok.Kind, tok.Name, tok.Value, tok.HasValue, tok.Text)
	}
	// Output:
	// seq.fio:1 section "seq" "" has=false ([seq])
	// seq.fio:2 option "size" "1g" has=true (size=${SIZE})
	// seq.fio:3 include "common.fio" "" has=false (include common.fio)
	// seq.fio:4 option "time_based" "" has=false (time_based)
}

// Every fio 3.33 option name is known, aliases and engine options too,
// so that a typo can be told from an option stortest does not take.
func ExampleIsOption() {
	for _, name := range []string{"bs", "blocksize", "sqthread_poll", "blcksize", "output-format"} {
		fmt.Println(name, fio.IsOption(name), fio.IsCommandLineOption(name))
	}
	// Output:
	// bs true false
	// blocksize true false
	// sqthread_poll true false
	// blcksize false false
	// output-format false true
}
