package fiojob

import (
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// netString prints Net's options in job-file syntax, for Format.
func netString(j *workload.Job) string {
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.Port != 0 {
		kv("port", strconv.Itoa(j.Port))
	}
	if j.Protocol != "" {
		kv("protocol", j.Protocol)
	}
	if j.Listen {
		kv("listen", "1")
	}
	if j.PingPong {
		kv("pingpong", "1")
	}
	if j.NoDelay {
		kv("nodelay", "1")
	}
	if j.TTL != nil {
		kv("ttl", strconv.Itoa(*j.TTL))
	}
	if j.WindowSize != 0 {
		kv("window_size", strconv.Itoa(j.WindowSize))
	}
	if j.MSS != 0 {
		kv("mss", strconv.Itoa(j.MSS))
	}
	if j.Interface != "" {
		kv("interface", j.Interface)
	}
	return b.String()
}
