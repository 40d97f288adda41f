package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// validateNet checks Net's fields of the normalized job as fio's net
// engine checks them when the job starts, and refuses what stortest
// does not do with it.
func validateNet(j *workload.Job) error {
	bad := func(field, format string, args ...any) error {
		return &workload.FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	netEng := workload.IsNetEngine(j.Engine)
	// EngineOptions lists the engines of each.
	for _, o := range [...]struct {
		name string
		set  bool
	}{{"port", j.Port != 0}, {"protocol", j.Protocol != ""}, {"listen", j.Listen}, {"pingpong", j.PingPong},
		{"nodelay", j.NoDelay}, {"ttl", j.TTL != nil}, {"window_size", j.WindowSize != 0}, {"mss", j.MSS != 0},
		{"interface", j.Interface != ""}} {
		if o.set && !slices.Contains(workload.EngineOptions[o.name], j.Engine) {
			return bad(o.name, "ioengine=%s does not take it (only %s)", j.Engine, workload.OrList(workload.EngineOptions[o.name]))
		}
	}
	if !netEng {
		return nil
	}
	p := j.NetProtocol()
	udp := p == "udp" || p == "udpv6"
	switch {
	case !slices.Contains(workload.NetProtocols, p):
		return bad("protocol", "unknown protocol %q (want %s)", p, workload.OrList(workload.NetProtocols))
	case j.Port < 0 || j.Port > 65535:
		return bad("port", "%d is outside [1, 65535]", j.Port)
	case j.TTL != nil && *j.TTL < 0:
		return bad("ttl", "negative (%d)", *j.TTL)
	case j.WindowSize < 0:
		return bad("window_size", "negative (%d)", j.WindowSize)
	case j.MSS < 0:
		return bad("mss", "negative (%d)", j.MSS)
	case j.RW.Random():
		return bad("rw", "network I/O can't be random (fio: rw=%s with ioengine=%s)", j.RW, j.Engine)
	case p == "unix" && j.Port != 0:
		return bad("port", "not valid with protocol=unix (the socket is filename=)")
	case p != "unix" && j.Port == 0:
		return bad("port", "ioengine=%s with protocol=%s needs a port", j.Engine, p)
	case p == "unix" && j.Filename == "":
		return bad("filename", "protocol=unix needs the socket's path (filename= or hostname=)")
	case j.Port+j.NumJobs-1 > 65535:
		return bad("port", "port %d and numjobs=%d go past 65535 (clone i uses port+i)", j.Port, j.NumJobs)
	case j.Listen && p != "tcp" && p != "tcpv6":
		return bad("listen", "only valid for TCP (a UDP or unix job that reads listens)")
	case j.RW.Mixed():
		return unsupportedField(j.Name, "rw", "rw="+j.RW.String()+" with ioengine="+j.Engine+" (a job that both sends and receives)")
	case j.RW.Trims():
		return bad("rw", "ioengine=%s sends (write) or receives (read), not rw=%s", j.Engine, j.RW)
	case j.Interface != "" && !isIPv4(j.Interface):
		return bad("interface", "%q is not an IPv4 address (fio: interface not valid interface IP)", j.Interface)
	case j.Verify != workload.VerifyNone:
		return unsupportedField(j.Name, "verify", "verify with ioengine="+j.Engine)
	}
	if j.NetListens() {
		if j.Filename != "" && p != "unix" && !(udp && workload.IsMulticast(j.Filename)) {
			return bad("hostname", "%q: a job that listens takes no host, unless a UDP multicast group (fio: hostname not valid for non-multicast inbound network IO)", j.Filename)
		}
		if j.Filename != "" && p == "udpv6" {
			return bad("hostname", "IPv6 multicast is not supported (as in fio)")
		}
	} else if j.Filename == "" {
		hint := ""
		if j.RW.Reads() {
			hint = "; did you forget to set listen?"
		}
		return bad("hostname", "a job that connects needs hostname= (or filename=)%s", hint)
	}
	if udp && j.Filename != "" && workload.IsMulticast(j.Filename) && p == "udpv6" {
		return bad("hostname", "IPv6 multicast is not supported (as in fio)")
	}
	return nil
}

func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p == "" || p[0] == '+' {
			return false
		}
	}
	return true
}
