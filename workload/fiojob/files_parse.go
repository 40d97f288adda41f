package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// multiFileString prints MultiFile's options in job-file syntax, for
// Format.
func multiFileString(j *workload.Job) string {
	var b jobText
	if j.FileService != (workload.FileService{}) {
		b.kv("file_service_type", j.FileService.String())
	}
	b.num("openfiles", int64(j.OpenFiles), 0)
	return b.String()
}

// parseFileService parses fio's file_service_type.
func parseFileService(s string) (workload.FileService, error) {
	name, rest, hasRest := strings.Cut(s, ":")
	var fs workload.FileService
	switch name {
	case "roundrobin":
		fs.Kind = workload.ServiceRoundRobin
	case "sequential":
		fs.Kind = workload.ServiceSequential
	case "random":
		fs.Kind = workload.ServiceRandom
	case "zipf":
		fs.Kind = workload.ServiceZipf
	case "pareto":
		fs.Kind = workload.ServicePareto
	case "normal", "gauss":
		fs.Kind = workload.ServiceNormal
	default:
		return fs, fmt.Errorf("unknown file_service_type %q (want random, roundrobin, sequential, zipf, pareto, normal or gauss)", name)
	}
	if !hasRest {
		return fs, nil
	}
	if !fs.Kind.NonUniform() {
		// fio takes atoi of the postfix: leading digits, else 0 (then
		// 1 I/O a file).
		n := 0
		for _, c := range rest {
			if c < '0' || c > '9' || n > 1<<24 {
				break
			}
			n = n*10 + int(c-'0')
		}
		fs.Nr = n
		return fs, nil
	}
	p, c, hasC := strings.Cut(rest, ":")
	v, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return fs, fmt.Errorf("file_service_type %q: parameter %q is not a number", s, p)
	}
	fs.Param = v
	if hasC {
		cv, err := strconv.ParseFloat(c, 64)
		if err != nil || cv < 0 || cv > 1 {
			return fs, fmt.Errorf("file_service_type %q: center %q is not a number from 0 to 1", s, c)
		}
		fs.Center, fs.HasCenter = cv, true
	}
	if msg := validate.FileService(fs); msg != "" {
		return fs, fmt.Errorf("file_service_type %q: %s", s, msg)
	}
	return fs, nil
}
