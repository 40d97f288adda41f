package engines

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NetSpec is the socket of the net engine, fio's net options.
type NetSpec struct {
	// Proto is tcp, tcpv6, udp, udpv6 or unix.
	Proto string
	// Host is the peer a sender connects or sends to (a name or an
	// address), the multicast group a UDP receiver joins ("" for none),
	// or the unix socket's path.
	Host string
	Port int // TCP and UDP; the clone's own (fio's port + clone)
	// Listen: this end waits for the peer (TCP and unix accept; UDP
	// binds the port and waits for the sender's open message).
	Listen bool
	// Send: this end sends (a job that writes); else it receives.
	Send       bool
	PingPong   bool   // each block goes back to its sender
	NoDelay    bool   // TCP_NODELAY
	TTL        int    // IP_MULTICAST_TTL of a multicast sender
	WindowSize int    // SO_RCVBUF / SO_SNDBUF; 0 leaves the kernel's
	MSS        int    // TCP_MAXSEG; 0 leaves the kernel's
	Interface  string // IPv4 address of the multicast interface
	// Size is the bytes a TCP sender sends: the blocks before the last
	// go with MSG_MORE, as fio's do (0: none does).
	Size int64
	// Seq: a UDP sender ends each block of at least 24 bytes with a
	// sequence number (fio's, when the job does not verify), from which
	// the receiver counts the datagrams lost (DroppedIOs).
	Seq bool
}

// ErrEndOfStream is Queue's error when the peer has closed the stream
// (TCP, unix) or sent the close message (UDP) and the unit got no byte:
// the job's I/O is over, and the unit did not happen.
var ErrEndOfStream = errors.New("engines: the peer ended the stream")

// Opener is an engine whose target must be reached when the job starts:
// the net engine accepts its peer or connects to it. The runner calls
// Open on the job's goroutine before the job's clock starts, and Queue
// after it. restart reports whether the job's runtime starts over when
// Open returns, as fio's does when a TCP or unix listener's peer
// connects; else only the measurement does (a UDP receiver: fio starts
// measuring at the sender's open message, its runtime counting from
// the job's start).
type Opener interface {
	Open() (restart bool, err error)
}

// netPoll is how long a wait for a socket lasts before the engine asks
// Config.Stop whether the job is over.
const netPoll = 20 * time.Millisecond

// fio's link messages (UDP): the sender's open (magic and command in
// network order) and close (in little-endian order, as fio 3.33 sends
// it), and the sequence trailer of each datagram.
const (
	linkMagic     = 0x6c696e6b
	linkOpen      = 0x98
	linkClose     = 0x89
	udpSeqMagic   = 0x657375716e556563
	udpSeqTrailer = 24 // magic, seq, bs: three little-endian uint64
)

// resStop is the internal result of a transfer that got nothing before
// the job was over; resEOF of one that found the stream ended.
const (
	resStop = -1 << 62
	resEOF  = resStop + 1
)

// netEngine is fio's "net": each unit is one block sent or received
// over a socket. TCP and unix sockets carry a stream: a unit completes
// when its whole block has moved (a short unit is the last one, cut by
// the peer's close), and a stream that ends with no byte of the unit
// ends the job (ErrEndOfStream). UDP moves one datagram per unit, with
// fio's link messages: the sender's open and close, and a sequence
// number in each block. Sockets are non-blocking: a unit that must wait
// polls in steps of netPoll and gives up (Busy, nothing moved) when
// Config.Stop says the job is over, so a receiver whose sender is gone
// ends with its runtime, where fio's waits on.
//
// Where the counts differ from fio 3.33's: fio's receiver takes what one
// recv(2) returns and counts a partial block as an I/O of its own
// (short_ios), requeuing the rest, and leaves the partial bytes out of
// io_bytes; its receiver of netio.fio (16 MiB in 4 KiB blocks) counts
// 4096 I/Os plus a few short ones and some KiB less than was sent, a
// different few each run. Here a unit is a whole block, so a receiver
// counts the sender's blocks and bytes exactly. And fio's receiver
// waits on when its sender closes early (until its runtime, or for
// ever); here the close ends it.
type netEngine struct {
	inline
	spec  NetSpec
	stop  func() bool
	udp   bool
	v6    bool
	lfd   int // listening (or bound UDP receiving) socket; -1
	fd    int // data socket; -1
	sent  int64
	opens bool // Open done
	// peer is the address UDP datagrams go to: the sender's target, or
	// for a receiver the address of the last datagram's sender (its
	// replies go there).
	peer    unix.RawSockaddrAny
	peerLen uint32
	from    unix.RawSockaddrAny
	fromLen uint32
	seq     uint64 // next sequence number to send
	recvSeq uint64 // next sequence number expected
	seqOff  bool   // the sender's blocks have no usable sequence
	dropped uint64
	pfd     [1]unix.PollFd
	ts      unix.Timespec
	ended   bool // Stop ran
}

var _ Engine = (*netEngine)(nil)
var _ Opener = (*netEngine)(nil)

func newNet(cfg Config) (Engine, error) {
	if cfg.Net == nil {
		return nil, fmt.Errorf("engines: %w: net needs Config.Net", ErrConfig)
	}
	s := *cfg.Net
	e := &netEngine{spec: s, stop: cfg.Stop, lfd: -1, fd: -1, ts: unix.NsecToTimespec(int64(netPoll))}
	switch s.Proto {
	case "tcp", "unix":
	case "tcpv6":
		e.v6 = true
	case "udp":
		e.udp = true
	case "udpv6":
		e.udp, e.v6 = true, true
	default:
		return nil, fmt.Errorf("engines: %w: net protocol %q", ErrConfig, s.Proto)
	}
	if e.udp || s.Proto == "unix" {
		s.Listen = !s.Send // as fio: a datagram or unix reader listens
		e.spec.Listen = s.Listen
	}
	if s.Proto != "unix" && (s.Port < 1 || s.Port > 65535) {
		return nil, fmt.Errorf("engines: %w: net port %d", ErrConfig, s.Port)
	}
	if s.Listen && s.Host != "" && s.Proto != "unix" && !(e.udp && !e.v6 && IsMulticastIPv4(s.Host)) {
		return nil, fmt.Errorf("engines: %w: net: a listener takes no host but an IPv4 multicast group (%q)", ErrConfig, s.Host)
	}
	if s.Listen {
		// The listening socket exists before any job of the run starts,
		// so a sender without startdelay finds it.
		if err := e.listen(); err != nil {
			return nil, err
		}
	} else if err := e.resolve(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *netEngine) Name() string { return "net" }

func (e *netEngine) Flags() Flags { return FlagSync | FlagNoAlign }

// what names the socket in errors.
func (e *netEngine) what() string {
	if e.spec.Proto == "unix" {
		return "unix socket " + e.spec.Host
	}
	host := e.spec.Host
	if host == "" {
		host = "*"
	}
	return e.spec.Proto + " " + net.JoinHostPort(host, strconv.Itoa(e.spec.Port))
}

func (e *netEngine) domain() int {
	switch {
	case e.spec.Proto == "unix":
		return unix.AF_UNIX
	case e.v6:
		return unix.AF_INET6
	}
	return unix.AF_INET
}

func (e *netEngine) socket() (int, error) {
	typ := unix.SOCK_STREAM
	if e.udp {
		typ = unix.SOCK_DGRAM
	}
	fd, err := unix.Socket(e.domain(), typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("engines: net %s: socket: %w", e.what(), err)
	}
	return fd, nil
}

// setOpts applies window_size and mss to fd, as fio does on each socket.
func (e *netEngine) setOpts(fd int) error {
	s := &e.spec
	if s.WindowSize > 0 {
		if s.Listen || s.PingPong || !s.Send {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, s.WindowSize); err != nil {
				return fmt.Errorf("engines: net %s: window_size (SO_RCVBUF): %w", e.what(), err)
			}
		}
		if s.Send || s.PingPong {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, s.WindowSize); err != nil {
				return fmt.Errorf("engines: net %s: window_size (SO_SNDBUF): %w", e.what(), err)
			}
		}
	}
	if s.MSS > 0 && !e.udp && s.Proto != "unix" {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_MAXSEG, s.MSS); err != nil {
			return fmt.Errorf("engines: net %s: mss (TCP_MAXSEG): %w", e.what(), err)
		}
	}
	return nil
}

// blocking makes fd the data socket: blocking, each call waiting at
// most netPoll (SO_RCVTIMEO, SO_SNDTIMEO), after which the transfer asks
// Config.Stop whether to go on. A transfer that can go at once is one
// system call, and one that waits sleeps in the kernel, as fio's do.
func (e *netEngine) blocking(fd int) error {
	if err := unix.SetNonblock(fd, false); err != nil {
		return fmt.Errorf("engines: net %s: %w", e.what(), err)
	}
	tv := unix.NsecToTimeval(int64(netPoll))
	for _, o := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, o, &tv); err != nil {
			return fmt.Errorf("engines: net %s: setsockopt: %w", e.what(), err)
		}
	}
	e.fd = fd
	return nil
}

// over reports whether the job is over (Config.Stop).
func (e *netEngine) over() bool { return e.stop != nil && e.stop() }

func (e *netEngine) setNoDelay(fd int) error {
	if !e.spec.NoDelay || e.udp || e.spec.Proto == "unix" {
		return nil
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return fmt.Errorf("engines: net %s: TCP_NODELAY: %w (disable with nodelay=0)", e.what(), err)
	}
	return nil
}

// listen makes the listening socket: a unix path (made anew), or the
// port on every address, joining the multicast group for UDP.
func (e *netEngine) listen() error {
	fd, err := e.socket()
	if err != nil {
		return err
	}
	fail := func(what string, err error) error {
		unix.Close(fd)
		return fmt.Errorf("engines: net %s: %s: %w", e.what(), what, err)
	}
	var sa unix.Sockaddr
	if e.spec.Proto == "unix" {
		os.Remove(e.spec.Host) // a socket left by an earlier run
		sa = &unix.SockaddrUnix{Name: e.spec.Host}
	} else {
		for _, o := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, o, 1); err != nil {
				return fail("setsockopt", err)
			}
		}
		if err := e.setOpts(fd); err != nil {
			unix.Close(fd)
			return err
		}
		if e.v6 {
			sa = &unix.SockaddrInet6{Port: e.spec.Port}
		} else {
			sa4 := &unix.SockaddrInet4{Port: e.spec.Port}
			if e.spec.Host != "" {
				group, err := ipv4(e.spec.Host)
				if err != nil {
					unix.Close(fd)
					return fmt.Errorf("engines: net %s: %w", e.what(), err)
				}
				mr := &unix.IPMreq{Multiaddr: group}
				if e.spec.Interface != "" {
					if mr.Interface, err = ipv4(e.spec.Interface); err != nil {
						unix.Close(fd)
						return fmt.Errorf("engines: net %s: interface: %w", e.what(), err)
					}
				}
				if err := unix.SetsockoptIPMreq(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, mr); err != nil {
					return fail("IP_ADD_MEMBERSHIP", err)
				}
				sa4.Addr = group
			}
			sa = sa4
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	if !e.udp {
		if err := unix.Listen(fd, 10); err != nil {
			return fail("listen", err)
		}
	}
	e.lfd = fd
	return nil
}

func ipv4(s string) ([4]byte, error) {
	ip := net.ParseIP(s).To4()
	if ip == nil {
		return [4]byte{}, fmt.Errorf("%q is not an IPv4 address", s)
	}
	return [4]byte(ip), nil
}

// resolve finds a sender's peer address (a name is looked up, as fio's
// getaddrinfo does).
func (e *netEngine) resolve() error {
	if e.spec.Host == "" {
		return fmt.Errorf("engines: %w: net: a sender needs a host", ErrConfig)
	}
	if e.spec.Proto == "unix" {
		return nil
	}
	network := "ip4"
	if e.v6 {
		network = "ip6"
	}
	ip, err := net.ResolveIPAddr(network, e.spec.Host)
	if err != nil {
		return fmt.Errorf("engines: net %s: %w", e.what(), err)
	}
	var sa unix.Sockaddr
	if e.v6 {
		sa6 := &unix.SockaddrInet6{Port: e.spec.Port}
		copy(sa6.Addr[:], ip.IP.To16())
		sa = sa6
	} else {
		sa4 := &unix.SockaddrInet4{Port: e.spec.Port}
		copy(sa4.Addr[:], ip.IP.To4())
		sa = sa4
	}
	e.peer, e.peerLen = rawSockaddr(sa)
	return nil
}

// rawSockaddr is sa in the kernel's layout, for sendto and connect.
func rawSockaddr(sa unix.Sockaddr) (unix.RawSockaddrAny, uint32) {
	var raw unix.RawSockaddrAny
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(&raw))
		p.Family = unix.AF_INET
		p.Port = uint16(a.Port>>8 | a.Port<<8&0xff00)
		p.Addr = a.Addr
		return raw, unix.SizeofSockaddrInet4
	case *unix.SockaddrInet6:
		p := (*unix.RawSockaddrInet6)(unsafe.Pointer(&raw))
		p.Family = unix.AF_INET6
		p.Port = uint16(a.Port>>8 | a.Port<<8&0xff00)
		p.Addr = a.Addr
		return raw, unix.SizeofSockaddrInet6
	}
	panic("engines: rawSockaddr: unexpected address type")
}

// Open reaches the peer: a listener accepts it (TCP, unix) or waits for
// its open message (UDP); a sender connects (TCP, unix) or sends its
// open message (UDP). A wait ends early, with an error, when
// Config.Stop says the job is over.
func (e *netEngine) Open() (restart bool, err error) {
	if e.closed {
		return false, ErrClosed
	}
	restart = !e.udp
	if e.opens {
		return restart, nil
	}
	e.opens = true
	if e.spec.Listen {
		return restart, e.accept()
	}
	return restart, e.connect()
}

// wait polls fd for events in steps of netPoll until it is ready (nil)
// or the job is over (errStopped).
func (e *netEngine) wait(fd int, events int16) int64 {
	for {
		e.pfd[0] = unix.PollFd{Fd: int32(fd), Events: events}
		r, _, errno := unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&e.pfd[0])), 1,
			uintptr(unsafe.Pointer(&e.ts)), 0, 0, 0)
		switch {
		case errno == unix.EINTR:
		case errno != 0:
			return -int64(errno)
		case r > 0:
			return 0
		}
		if e.stop != nil && e.stop() {
			return resStop
		}
	}
}

var errStopped = errors.New("the job ended before the peer came")

func (e *netEngine) accept() error {
	if e.udp {
		fd := e.lfd
		e.lfd = -1
		if err := e.blocking(fd); err != nil {
			unix.Close(fd)
			return err
		}
		return e.recvOpen()
	}
	for {
		nfd, _, err := unix.Accept4(e.lfd, unix.SOCK_CLOEXEC)
		if err == nil {
			if err := e.blocking(nfd); err != nil {
				unix.Close(nfd)
				return err
			}
			break
		}
		if err != unix.EAGAIN && err != unix.EINTR && err != unix.ECONNABORTED {
			return fmt.Errorf("engines: net %s: accept: %w", e.what(), err)
		}
		if r := e.wait(e.lfd, unix.POLLIN); r == resStop {
			return fmt.Errorf("engines: net %s: waiting for a connection: %w", e.what(), errStopped)
		} else if r < 0 {
			return fmt.Errorf("engines: net %s: poll: %w", e.what(), unix.Errno(-r))
		}
	}
	return e.setNoDelay(e.fd)
}

// recvOpen waits for a UDP sender's open message; its address is where
// pingpong replies go.
func (e *netEngine) recvOpen() error {
	var msg [8]byte
	for {
		e.fromLen = unix.SizeofSockaddrAny
		// MSG_TRUNC: a datagram's own length, so that a data block
		// (which a receiver started late may see first) is told apart.
		r := sysRecvfrom(e.fd, msg[:], unix.MSG_TRUNC, &e.from, &e.fromLen)
		if r == 8 {
			if binary.BigEndian.Uint32(msg[0:]) != linkMagic || binary.BigEndian.Uint32(msg[4:]) != linkOpen {
				return fmt.Errorf("engines: net %s: bad udp open magic %x/%x", e.what(),
					binary.BigEndian.Uint32(msg[0:]), binary.BigEndian.Uint32(msg[4:]))
			}
			e.peer, e.peerLen = e.from, e.fromLen
			return nil
		}
		if r >= 0 {
			continue // not an open message: fio would fail; a stray datagram is skipped
		}
		if r != -int64(unix.EAGAIN) && r != -int64(unix.EINTR) {
			return fmt.Errorf("engines: net %s: recvfrom udp link open: %w", e.what(), unix.Errno(-r))
		}
		if r == -int64(unix.EAGAIN) && e.over() {
			return fmt.Errorf("engines: net %s: waiting for the sender: %w", e.what(), errStopped)
		}
	}
}

func (e *netEngine) connect() error {
	fd, err := e.socket()
	if err != nil {
		return err
	}
	e.fd = fd
	if err := e.setNoDelay(fd); err != nil {
		return err
	}
	if err := e.setOpts(fd); err != nil {
		return err
	}
	if e.udp {
		if err := e.blocking(fd); err != nil {
			return err
		}
		if IsMulticastIPv4(e.spec.Host) {
			if e.spec.Interface != "" {
				ifc, err := ipv4(e.spec.Interface)
				if err != nil {
					return fmt.Errorf("engines: net %s: interface: %w", e.what(), err)
				}
				if err := unix.SetsockoptInet4Addr(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, ifc); err != nil {
					return fmt.Errorf("engines: net %s: IP_MULTICAST_IF: %w", e.what(), err)
				}
			}
			if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, e.spec.TTL); err != nil {
				return fmt.Errorf("engines: net %s: IP_MULTICAST_TTL: %w", e.what(), err)
			}
		}
		var msg [8]byte
		binary.BigEndian.PutUint32(msg[0:], linkMagic)
		binary.BigEndian.PutUint32(msg[4:], linkOpen)
		if r := e.sendDgram(msg[:]); r < 0 {
			return fmt.Errorf("engines: net %s: sendto udp link open: %w", e.what(), unix.Errno(-r))
		}
		return nil
	}
	var sa unix.Sockaddr
	if e.spec.Proto == "unix" {
		sa = &unix.SockaddrUnix{Name: e.spec.Host}
	} else {
		sa = sockaddrOf(&e.peer)
	}
	err = unix.Connect(fd, sa)
	if err == unix.EINPROGRESS {
		if r := e.wait(fd, unix.POLLOUT); r == resStop {
			return fmt.Errorf("engines: net %s: connect: %w", e.what(), errStopped)
		}
		var soErr int
		soErr, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err == nil && soErr != 0 {
			err = unix.Errno(soErr)
		}
	}
	if err != nil {
		return fmt.Errorf("engines: net %s: connect: %w", e.what(), err)
	}
	return e.blocking(fd)
}

func sockaddrOf(raw *unix.RawSockaddrAny) unix.Sockaddr {
	switch raw.Addr.Family {
	case unix.AF_INET:
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(raw))
		return &unix.SockaddrInet4{Port: int(p.Port>>8 | p.Port<<8), Addr: p.Addr}
	case unix.AF_INET6:
		p := (*unix.RawSockaddrInet6)(unsafe.Pointer(raw))
		return &unix.SockaddrInet6{Port: int(p.Port>>8 | p.Port<<8), Addr: p.Addr}
	}
	return nil
}

// IsMulticastIPv4 reports whether s is an IPv4 multicast address.
func IsMulticastIPv4(s string) bool {
	ip := net.ParseIP(s).To4()
	return ip != nil && ip[0] >= 224 && ip[0] <= 239
}

func (e *netEngine) Queue(u *Unit) (Status, error) {
	if e.closed || e.ended {
		return Busy, ErrClosed
	}
	if !e.opens {
		if _, err := e.Open(); err != nil {
			return Busy, err
		}
	}
	var r int64
	switch u.Op {
	case OpRead:
		r = e.recv(u.Buf, true)
		if r > 0 && e.spec.PingPong && r == int64(len(u.Buf)) {
			if rr := e.send(u.Buf[:r]); rr < 0 && rr != resStop {
				r = rr
			}
		}
	case OpWrite:
		r = e.send(u.Buf)
		if r > 0 {
			e.sent += r
		}
		if r > 0 && e.spec.PingPong && r == int64(len(u.Buf)) {
			// The peer's end (its close) instead of the reply ends the
			// job, the unit not counted, as fio's.
			if rr := e.recv(u.Buf, false); rr < 0 && rr != resStop {
				r = rr
			}
		}
	default:
		r = 0 // fsync and friends: nothing to do on a socket, as fio
	}
	switch r {
	case resStop:
		return Busy, nil
	case resEOF:
		return Busy, ErrEndOfStream
	}
	u.Res = r
	return Completed, nil
}

// recv receives one unit: the whole block from a stream (fewer bytes
// only when the stream ends), one datagram over UDP; seq: count the
// datagrams lost.
func (e *netEngine) recv(b []byte, seq bool) int64 {
	if e.udp {
		return e.recvDgram(b, seq)
	}
	got := 0
	for got < len(b) {
		r := sysRecvfrom(e.fd, b[got:], unix.MSG_WAITALL, nil, nil)
		switch {
		case r > 0:
			got += int(r)
			continue
		case r == 0:
			return moved(got, resEOF)
		case r == -int64(unix.EINTR):
			continue
		case r != -int64(unix.EAGAIN):
			return moved(got, r)
		}
		if e.over() {
			return moved(got, resStop)
		}
	}
	return int64(got)
}

// moved is what a stream's recv or send returns when it stops before
// the whole block: the bytes it moved, else why it stopped (the end of
// the stream, the run's end, or -errno).
func moved(n int, why int64) int64 {
	if n > 0 {
		return int64(n)
	}
	return why
}

func (e *netEngine) recvDgram(b []byte, seq bool) int64 {
	for {
		var r int64
		if e.spec.Listen {
			e.fromLen = unix.SizeofSockaddrAny
			r = sysRecvfrom(e.fd, b, 0, &e.from, &e.fromLen)
		} else {
			r = sysRecvfrom(e.fd, b, 0, nil, nil)
		}
		if r >= 0 {
			if r == 8 && binary.LittleEndian.Uint32(b[0:]) == linkMagic && binary.LittleEndian.Uint32(b[4:]) == linkClose {
				return resEOF
			}
			if e.spec.Listen {
				e.peer, e.peerLen = e.from, e.fromLen
			}
			if seq {
				e.checkSeq(b[:r])
			}
			return r
		}
		if r == -int64(unix.EINTR) {
			continue
		}
		if r != -int64(unix.EAGAIN) {
			return r
		}
		if e.over() {
			return resStop
		}
	}
}

// checkSeq counts the datagrams missing before b, from the sequence
// trailer fio's sender puts at the end of each block.
func (e *netEngine) checkSeq(b []byte) {
	if len(b) < udpSeqTrailer || e.seqOff {
		return
	}
	t := b[len(b)-udpSeqTrailer:]
	if binary.LittleEndian.Uint64(t[0:]) != udpSeqMagic {
		return
	}
	if binary.LittleEndian.Uint64(t[16:]) != uint64(len(b)) {
		e.seqOff = true
		return
	}
	s := binary.LittleEndian.Uint64(t[8:])
	if s > e.recvSeq {
		e.dropped += s - e.recvSeq
	}
	e.recvSeq = s + 1
}

// DroppedIOs is the number of UDP datagrams the receiver found missing
// (fio's drop_ios).
func (e *netEngine) DroppedIOs() uint64 { return e.dropped }

// send sends one unit: the whole block on a stream, one datagram over
// UDP (to the peer: the sender's target, or the sender a receiver's
// pingpong answers).
func (e *netEngine) send(b []byte) int64 {
	if e.udp {
		if e.spec.Seq && e.spec.Send && len(b) >= udpSeqTrailer {
			t := b[len(b)-udpSeqTrailer:]
			binary.LittleEndian.PutUint64(t[0:], udpSeqMagic)
			binary.LittleEndian.PutUint64(t[8:], e.seq)
			binary.LittleEndian.PutUint64(t[16:], uint64(len(b)))
			e.seq++
		}
		return e.sendDgram(b)
	}
	flags := unix.MSG_NOSIGNAL
	if e.spec.Send && !e.spec.PingPong && e.sent+int64(len(b)) < e.spec.Size {
		flags |= unix.MSG_MORE // more follows: let TCP fill its segments
	}
	put := 0
	for put < len(b) {
		r := sysSendto(e.fd, b[put:], flags, nil, 0)
		switch {
		case r > 0:
			put += int(r)
			continue
		case r == -int64(unix.EINTR):
			continue
		case r != -int64(unix.EAGAIN):
			return moved(put, r)
		}
		if e.over() {
			return moved(put, resStop)
		}
	}
	return int64(put)
}

func (e *netEngine) sendDgram(b []byte) int64 {
	for {
		r := sysSendto(e.fd, b, unix.MSG_NOSIGNAL, &e.peer, e.peerLen)
		if r >= 0 || (r != -int64(unix.EAGAIN) && r != -int64(unix.EINTR)) {
			return r
		}
		if r == -int64(unix.EAGAIN) && e.over() {
			return resStop
		}
	}
}

func sysRecvfrom(fd int, b []byte, flags int, from *unix.RawSockaddrAny, fromLen *uint32) int64 {
	r, _, errno := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), bufAddr(b), uintptr(len(b)), uintptr(flags),
		uintptr(unsafe.Pointer(from)), uintptr(unsafe.Pointer(fromLen)))
	return res(r, errno)
}

func sysSendto(fd int, b []byte, flags int, to *unix.RawSockaddrAny, toLen uint32) int64 {
	r, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), bufAddr(b), uintptr(len(b)), uintptr(flags),
		uintptr(unsafe.Pointer(to)), uintptr(toLen))
	return res(r, errno)
}

// Stop ends this end of the link once the job's I/O is over: over UDP
// it sends fio's close message to its peer (a receiver's is the sender
// of its last datagram, which a pingpong sender waits on), and the
// socket closes, which ends a stream's peer's.
func (e *netEngine) Stop() error {
	if e.ended {
		return nil
	}
	e.ended = true
	var err error
	if e.udp && e.fd >= 0 && e.peerLen > 0 {
		var msg [8]byte
		binary.LittleEndian.PutUint32(msg[0:], linkMagic)
		binary.LittleEndian.PutUint32(msg[4:], linkClose)
		if r := e.sendDgram(msg[:]); r < 0 {
			err = fmt.Errorf("engines: net %s: sendto udp link close: %w", e.what(), unix.Errno(-r))
		}
	}
	e.closeFDs()
	return err
}

func (e *netEngine) closeFDs() {
	for _, fd := range []*int{&e.fd, &e.lfd} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
	if e.spec.Listen && e.spec.Proto == "unix" {
		os.Remove(e.spec.Host)
	}
}

func (e *netEngine) Explain(u *Unit) error {
	if u.Res >= 0 {
		return nil
	}
	errno := unix.Errno(-u.Res)
	what := fmt.Sprintf("engines: net %s %s len %d", e.what(), u.Op, len(u.Buf))
	switch errno {
	case unix.ECONNRESET, unix.EPIPE:
		return fmt.Errorf("%s: %w: the peer closed the connection", what, errno)
	case unix.ECONNREFUSED:
		return fmt.Errorf("%s: %w: nothing listens there", what, errno)
	}
	return fmt.Errorf("%s: %w", what, errno)
}

// Close stops the link if the job did not, and releases the sockets.
func (e *netEngine) Close() error {
	if e.closed {
		return nil
	}
	err := e.Stop()
	e.closed = true
	return err
}
