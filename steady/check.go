package steady

import (
	"io"
	"time"
)

// CheckSeries feeds a column of per-second values (ReadSamples' format)
// to a detector built from cfg and calls each, when not nil, with every
// verdict. Each value stands for the metric of every criterion: iops,
// bytes/s or a latency in nanoseconds. It returns the detector, for its
// Report and Losses, and the last verdict (the zero Verdict with Sample
// -1 when the input held no value).
func CheckSeries(cfg Config, r io.Reader, name string, each func(Verdict) error) (*Detector, Verdict, error) {
	d, err := NewDetector(cfg)
	if err != nil {
		return nil, Verdict{}, err
	}
	lat := make([]time.Duration, len(d.Latencies()))
	last := Verdict{Sample: -1, WindowFirst: -1, WindowLast: -1}
	err = ReadSamples(r, name, func(_ int, v uint64) error {
		for i := range lat {
			lat[i] = time.Duration(min(v, 1<<63-1))
		}
		last = d.Add(Sample{IOPS: v, BW: v, Lat: lat})
		if each != nil {
			return each(last)
		}
		return nil
	})
	return d, last, err
}
