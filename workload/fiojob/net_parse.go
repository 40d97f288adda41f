package fiojob

import (
	"strconv"

	"stortest.dev/workload"
)

// netString prints Net's options in job-file syntax, for Format.
func netString(j *workload.Job) string {
	var b jobText
	b.num("port", int64(j.Port), 0)
	b.str("protocol", j.Protocol)
	b.flag("listen", j.Listen)
	b.flag("pingpong", j.PingPong)
	b.flag("nodelay", j.NoDelay)
	if j.TTL != nil {
		b.kv("ttl", strconv.Itoa(*j.TTL))
	}
	b.num("window_size", int64(j.WindowSize), 0)
	b.num("mss", int64(j.MSS), 0)
	b.str("interface", j.Interface)
	return b.String()
}
