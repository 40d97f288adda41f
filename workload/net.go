package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Net are the options of fio's net engine, which moves the job's bytes
// over a socket instead of a file: a job that writes sends, a job that
// reads receives. Job embeds it, so the fields read as Job's. The peer
// is the job's Filename (fio's hostname= sets filename=): the host a
// TCP or UDP sender sends to, the multicast group a UDP receiver joins,
// the path of a unix socket.
type Net struct {
	// Port is the TCP or UDP port (fio's port); clone i of a job with
	// numjobs uses Port+i, as fio does. Not with protocol=unix.
	Port int `json:"port,omitempty"`
	// Protocol is tcp (the default), tcpv6, udp, udpv6 or unix.
	Protocol string `json:"protocol,omitempty"`
	// Listen (fio's listen) makes a TCP job wait for its peer to
	// connect, then move its bytes; the job's clock starts when the
	// peer connects, as fio resets a listener's statistics then. A UDP
	// or unix job that reads listens without it (fio refuses listen
	// with them).
	Listen bool `json:"listen,omitempty"`
	// PingPong (fio's pingpong): each sent block waits for the peer to
	// send it back, and each received block is sent back, so an I/O's
	// latency is the round trip.
	PingPong bool `json:"pingpong,omitempty"`
	// NoDelay sets TCP_NODELAY on TCP connections.
	NoDelay bool `json:"nodelay,omitempty"`
	// TTL is the time to live of outgoing UDP multicast datagrams (fio's
	// ttl; nil means fio's default, 1).
	TTL *int `json:"ttl,omitempty"`
	// WindowSize (fio's window_size) sets the socket's buffers
	// (SO_RCVBUF when receiving or pingpong, SO_SNDBUF when sending or
	// pingpong), bytes; 0 leaves the kernel's.
	WindowSize int `json:"window_size,omitempty"`
	// MSS is TCP's maximum segment size (TCP_MAXSEG); 0 leaves the
	// kernel's.
	MSS int `json:"mss,omitempty"`
	// Interface is the IPv4 address of the interface UDP multicast goes
	// out of or is received on (fio's interface).
	Interface string `json:"interface,omitempty"`
}

// NetEngines are the engines that take Net's options.
var NetEngines = []string{"net"}

// IsNetEngine reports whether the engine called name moves its bytes
// over a socket.
func IsNetEngine(name string) bool { return slices.Contains(NetEngines, name) }

// NetProtocols are the values of Protocol.
var NetProtocols = []string{"tcp", "tcpv6", "udp", "udpv6", "unix"}

// NetProtocol is Protocol with its default.
func (j *Job) NetProtocol() string {
	if j.Protocol == "" {
		return "tcp"
	}
	return j.Protocol
}

// NetTTL is TTL with its default.
func (j *Job) NetTTL() int {
	if j.TTL == nil {
		return 1
	}
	return *j.TTL
}

// NetListens reports whether the job's end of the socket waits for the
// peer: listen (TCP), or a UDP or unix job that reads (fio's rule).
func (j *Job) NetListens() bool {
	if p := j.NetProtocol(); p != "tcp" && p != "tcpv6" {
		return j.RW.Reads()
	}
	return j.Listen
}

// IsMulticast reports whether host is an IPv4 address of the multicast
// range 224.0.0.0-239.255.255.255, as fio tests it.
func IsMulticast(host string) bool {
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return false
	}
	first := -1
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p == "" || p[0] == '+' {
			return false
		}
		if i == 0 {
			first = n
		}
	}
	return first >= 224 && first <= 239
}

// validateNet checks Net's fields of the normalized job as fio's net
// engine checks them when the job starts, and refuses what stortest
// does not do with it.
func (j *Job) validateNet() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	netEng := IsNetEngine(j.Engine)
	// EngineOptions lists the engines of each.
	for _, o := range [...]struct {
		name string
		set  bool
	}{{"port", j.Port != 0}, {"protocol", j.Protocol != ""}, {"listen", j.Listen}, {"pingpong", j.PingPong},
		{"nodelay", j.NoDelay}, {"ttl", j.TTL != nil}, {"window_size", j.WindowSize != 0}, {"mss", j.MSS != 0},
		{"interface", j.Interface != ""}} {
		if o.set && !slices.Contains(EngineOptions[o.name], j.Engine) {
			return bad(o.name, "ioengine=%s does not take it (only %s)", j.Engine, OrList(EngineOptions[o.name]))
		}
	}
	if !netEng {
		return nil
	}
	p := j.NetProtocol()
	udp := p == "udp" || p == "udpv6"
	switch {
	case !slices.Contains(NetProtocols, p):
		return bad("protocol", "unknown protocol %q (want %s)", p, OrList(NetProtocols))
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
	case j.Verify != VerifyNone:
		return unsupportedField(j.Name, "verify", "verify with ioengine="+j.Engine)
	}
	if j.NetListens() {
		if j.Filename != "" && p != "unix" && !(udp && IsMulticast(j.Filename)) {
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
	if udp && j.Filename != "" && IsMulticast(j.Filename) && p == "udpv6" {
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
