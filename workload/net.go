package workload

import (
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
