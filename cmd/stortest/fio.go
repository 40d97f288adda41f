package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"stortest.dev/latency"
)

func init() {
	define("fio pctiles",
		"[--percentiles LIST] FILE.json|-",
		"recompute fio's percentiles from the json+ bins of a fio output",
		fioPctilesCmd)
}

func fioPctilesCmd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	list := fs.String("percentiles", "", "fio percentile_list (e.g. 50:99:99.9) instead of each stat's own list")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one fio json+ file (or - for stdin), got %d arguments", errUsage, fs.NArg())
	}
	var override []float64
	if *list != "" {
		var err error
		if override, err = latency.ParsePercentileList(*list); err != nil {
			return fmt.Errorf("%w: --percentiles: %v", errUsage, err)
		}
	}
	out, err := readFioArg(fs.Arg(0))
	if err != nil {
		return err
	}
	doc, err := fioPctiles(out, override)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

func readFioArg(name string) (*latency.FioOutput, error) {
	if name == "-" {
		return latency.ReadFio(os.Stdin, "stdin")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return latency.ReadFio(f, name)
}

// pctilesDoc mirrors the shape of fio's JSON output: jobs[].jobname and
// jobs[].<direction>.<stat>.percentile.
type pctilesDoc struct {
	Jobs []pctilesJob `json:"jobs"`
}

type pctilesJob struct {
	Name  string      `json:"jobname"`
	Read  *pctilesDir `json:"read,omitempty"`
	Write *pctilesDir `json:"write,omitempty"`
	Trim  *pctilesDir `json:"trim,omitempty"`
}

type pctilesDir struct {
	Slat *pctilesStat `json:"slat_ns,omitempty"`
	Clat *pctilesStat `json:"clat_ns,omitempty"`
	Lat  *pctilesStat `json:"lat_ns,omitempty"`
}

type pctilesStat struct {
	N          uint64                 `json:"N"`
	Percentile latency.PercentileList `json:"percentile"`
}

// fioPctiles recomputes, for every job, direction and stat with json+
// bins, the percentiles of the stat's own list (or override).
func fioPctiles(out *latency.FioOutput, override []float64) (*pctilesDoc, error) {
	doc := &pctilesDoc{Jobs: []pctilesJob{}}
	found := 0
	for _, job := range out.Jobs {
		pj := pctilesJob{Name: job.Name}
		for _, dir := range latency.Directions {
			d := job.Direction(dir)
			if d == nil {
				continue
			}
			var pd pctilesDir
			any := false
			for _, stat := range latency.StatNames {
				s := d.Stat(stat)
				if s == nil {
					continue
				}
				h, err := s.Histogram(latency.FioLayout)
				if errors.Is(err, latency.ErrNoBins) {
					continue
				}
				if err != nil {
					return nil, fmt.Errorf("job %q %s %s: %w", job.Name, dir, stat, err)
				}
				ps := override
				if ps == nil {
					ps = s.Percentile.Percentiles()
				}
				if len(ps) == 0 {
					ps = latency.DefaultPercentiles
				}
				st := &pctilesStat{N: h.Count()}
				for i, v := range h.Percentiles(ps) {
					st.Percentile = append(st.Percentile, latency.PercentileValue{P: ps[i], Value: v})
				}
				switch stat {
				case "slat_ns":
					pd.Slat = st
				case "clat_ns":
					pd.Clat = st
				case "lat_ns":
					pd.Lat = st
				}
				any = true
				found++
			}
			if !any {
				continue
			}
			switch dir {
			case "read":
				pj.Read = &pd
			case "write":
				pj.Write = &pd
			case "trim":
				pj.Trim = &pd
			}
		}
		doc.Jobs = append(doc.Jobs, pj)
	}
	if found == 0 {
		return nil, errors.New("no json+ bins in any job (run fio with --output-format=json+)")
	}
	return doc, nil
}
