package latency

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBinsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, groups := range []int{FioGroups, LongGroups} {
		l, _ := NewLayout(groups)
		h := New(l)
		for _, v := range randomLatencies(r, 3000) {
			h.Add(v)
		}
		h.Add(40e9) // past fio's ceiling: clipped at 29 groups, not at 36
		back, err := FromBins(l, h.Bins())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(h.Counts(), back.Counts()); diff != "" {
			t.Fatalf("%d groups: counts differ (-want +got):\n%s", groups, diff)
		}
		if last := l.Buckets() - 1; back.Bucket(last) != h.Bucket(last) || (groups == LongGroups && back.Clipped() != 0) {
			t.Fatalf("%d groups: last bucket %d clipped %d, want %d", groups, back.Bucket(l.Buckets()-1), back.Clipped(), h.Bucket(l.Buckets()-1))
		}
		for _, p := range DefaultPercentiles {
			if back.Percentile(p) != h.Percentile(p) {
				t.Fatalf("%d groups: p%v %d, want %d", groups, p, back.Percentile(p), h.Percentile(p))
			}
		}
		// The JSON writer and the ordered reader agree.
		var bl BinList
		if err := json.Unmarshal(h.AppendBinsJSON(nil), &bl); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(BinList(h.Bins()), bl); diff != "" {
			t.Fatalf("AppendBinsJSON round trip (-want +got):\n%s", diff)
		}
		enc, _ := bl.MarshalJSON()
		if string(enc) != string(h.AppendBinsJSON(nil)) {
			t.Fatalf("BinList.MarshalJSON %s != AppendBinsJSON", enc)
		}
	}
}

func TestFromBinsRejectsForeignKeys(t *testing.T) {
	if _, err := FromBins(FioLayout, []Bin{{Value: 130, Count: 1}}); err == nil {
		t.Fatal("130 is not a bucket value (129 and 131 are) but was accepted")
	}
	// A 36-group histogram's bins past fio's ceiling fold into its last bucket.
	long := New(MustLayout(LongGroups))
	long.Add(40e9)
	long.Add(1000)
	folded, err := FromBins(FioLayout, long.Bins())
	if err != nil || folded.Bucket(FioBuckets-1) != 1 || folded.Clipped() != 1 || folded.Count() != 2 {
		t.Fatalf("folding a 40 s value: %v, last bucket %d, clipped %d", err, folded.Bucket(FioBuckets-1), folded.Clipped())
	}
	h, err := FromBins(FioLayout, []Bin{{Value: 129, Count: 2}, {Value: 131, Count: 2}})
	if err != nil || h.Count() != 4 || h.Mean() != 130 || h.Min() != 129 || h.Max() != 131 {
		t.Fatalf("FromBins: %v count %d mean %v", err, h.Count(), h.Mean())
	}
}

// fio's own bins, recorded, become histograms whose counts add up to N and
// whose written bins equal fio's byte for byte after normalising spaces.
func TestRecordedBinsRewriteIdentically(t *testing.T) {
	for _, path := range fioRecordings(t) {
		for _, job := range readFioFile(t, path).Jobs {
			d := job.Read
			if d == nil || d.Clat == nil || len(d.Clat.Bins) == 0 {
				continue
			}
			h, err := d.Clat.Histogram(FioLayout)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			want, _ := d.Clat.Bins.MarshalJSON()
			if got := string(h.AppendBinsJSON(nil)); got != string(want) {
				t.Fatalf("%s %s: rewritten bins differ", path, job.Name)
			}
		}
	}
}

func TestReadFioErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"not-json", "fio: no such file", "no JSON object"},
		{"syntax", "{\n\"jobs\": [\n{,}]}", "line 3 column 2"},
		{"bad-percentile-key", `{"jobs":[{"jobname":"a","read":{"clat_ns":{"percentile":{"x":1}}}}]}`, `percentile key "x"`},
		{"negative-bin", `{"jobs":[{"jobname":"a","read":{"clat_ns":{"bins":{"129":-1}}}}]}`, "not a non-negative integer"},
		{"string-bin", `{"jobs":[{"jobname":"a","read":{"clat_ns":{"bins":{"129":"x"}}}}]}`, "want an integer"},
		{"type", `{"jobs":[{"jobname":5}]}`, "line 1 column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadFio(strings.NewReader(c.in), "in.json")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "in.json") {
				t.Fatalf("err = %v, want it to name in.json and contain %q", err, c.want)
			}
		})
	}
	// Warnings before the JSON are skipped.
	out, err := ReadFio(strings.NewReader("fio: warning\n{\"jobs\":[{\"jobname\":\"j\"}]}"), "w")
	if err != nil || len(out.Jobs) != 1 || out.Jobs[0].Name != "j" {
		t.Fatalf("leading text: %v %+v", err, out)
	}
	// Bins that disagree with N are reported.
	out, _ = ReadFio(strings.NewReader(`{"jobs":[{"jobname":"a","read":{"clat_ns":{"N":3,"bins":{"129":1}}}}]}`), "n")
	if _, err := out.Jobs[0].Read.Clat.Histogram(FioLayout); err == nil {
		t.Fatal("bins holding 1 value with N=3 accepted")
	}
	if _, err := (&FioStat{}).Histogram(FioLayout); err != ErrNoBins {
		t.Fatalf("no bins: %v", err)
	}
}
