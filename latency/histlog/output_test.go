package histlog

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSinks(t *testing.T) {
	logs := []Input{
		memInput("node1/h.1", logRow(1000, Read, coarse(3, 10, 5, 30)...)+logRow(2000, Read, coarse(3, 4)...)),
		memInput(`odd,"name"`, logRow(1000, Write, coarse(2, 3)...)),
	}
	cfg := Config{LogHistMsec: 1000, Percentiles: []float64{50, 99.9}, Directions: []Direction{Read, All}, ByInput: true}
	var csv bytes.Buffer
	if _, err := Merge(context.Background(), logs, cfg, NewCSVSink(&csv, Microsecond)); err != nil {
		t.Fatal(err)
	}
	want := `time_ms,direction,inputs,samples,min,p50,p99.9,max,samples:node1/h.1,"samples:odd,""name"""
0,read,2,40,0.256,1.36533,2.04663,2.048,40,0
0,all,2,43,0.128,1.31413,2.04653,2.048,40,3
1000,read,1,4,0.256,0.384,0.511744,0.512,4,0
1000,all,1,4,0.256,0.384,0.511744,0.512,4,0
`
	if diff := cmp.Diff(want, csv.String()); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	var js bytes.Buffer
	if _, err := Merge(context.Background(), logs, cfg, NewJSONSink(&js, Nanosecond)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		StartMs   int64    `json:"start_ms"`
		QuantumMs int64    `json:"quantum_ms"`
		Quanta    int      `json:"quanta"`
		Unit      string   `json:"unit"`
		Inputs    []string `json:"inputs"`
		Rows      []struct {
			TimeMs      int64               `json:"time_ms"`
			Direction   string              `json:"direction"`
			Samples     float64             `json:"samples"`
			Min         *float64            `json:"min"`
			Percentiles map[string]*float64 `json:"percentiles"`
			ByInput     []float64           `json:"by_input"`
		} `json:"rows"`
		LateRows int `json:"late_rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON output: %v\n%s", err, js.String())
	}
	if doc.QuantumMs != 1000 || doc.Quanta != 2 || doc.Unit != "ns" || len(doc.Rows) != 4 || doc.Inputs[1] != `odd,"name"` {
		t.Errorf("JSON document %+v", doc)
	}
	if r := doc.Rows[1]; r.Direction != "all" || r.Samples != 43 || *r.Min != 128 || *r.Percentiles["99.9"] != 2046.53 || r.ByInput[1] != 3 {
		t.Errorf("JSON row %+v", r)
	}
}

func TestUnits(t *testing.T) {
	for s, want := range map[string]Unit{"ns": Nanosecond, "usec": Microsecond, "us": Microsecond, "ms": Millisecond} {
		if u, err := ParseUnit(s); err != nil || u != want {
			t.Errorf("ParseUnit(%q) = %v, %v", s, u, err)
		}
	}
	if _, err := ParseUnit("s"); err == nil {
		t.Error("ParseUnit(s): no error")
	}
}
