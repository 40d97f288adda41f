package engines

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// freePort returns a port nothing listens on now (network tcp or udp),
// picked by the kernel.
func freePort(t testing.TB, network string) int {
	t.Helper()
	if network == "udp" {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// netPair makes a receiving and a sending net engine over spec (Send
// and Listen set for each end), closed at the end of the test.
func netPair(t *testing.T, spec NetSpec, stop func() bool) (recv, send Engine) {
	t.Helper()
	rs := spec
	rs.Send, rs.Listen = false, true
	if spec.Proto != "unix" {
		rs.Host = "" // a listener takes no host (but a multicast group)
	}
	recv = newEngine(t, "net", Config{Net: &rs, Stop: stop})
	ss := spec
	ss.Send, ss.Listen = true, false
	send = newEngine(t, "net", Config{Net: &ss, Stop: stop})
	return recv, send
}

// openBoth opens the two ends at once (a listener waits for its peer).
func openBoth(t *testing.T, a, b Engine) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, e := range []Engine{a, b} {
		wg.Go(func() { _, errs[i] = e.(Opener).Open() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func pattern(b []byte, seed int) {
	for i := range b {
		b[i] = byte(i*31 + seed)
	}
}

// A stream (TCP, its IPv6 form, a unix socket) moves whole blocks: what
// the sender's units send, the receiver's units receive, byte for byte
// and block for block; the sender's close then ends the receiver's
// stream (ErrEndOfStream, the unit not done), and a block the close cut
// short completes short.
func TestNetStream(t *testing.T) {
	for _, proto := range []string{"tcp", "tcpv6", "unix"} {
		t.Run(proto, func(t *testing.T) {
			spec := NetSpec{Proto: proto, Host: "127.0.0.1", Port: freePort(t, "tcp")}
			switch proto {
			case "tcpv6":
				spec.Host = "::1"
				if l, err := net.Listen("tcp6", "[::1]:0"); err != nil {
					t.Skipf("no IPv6 loopback: %v", err)
				} else {
					l.Close()
				}
			case "unix":
				spec.Host, spec.Port = filepath.Join(t.TempDir(), "s.sock"), 0
			}
			const bs, n = 4096, 64
			spec.Size = bs * n
			recv, send := netPair(t, spec, nil)
			openBoth(t, recv, send)
			done := make(chan error, 1)
			go func() {
				u := &Unit{Op: OpWrite, Buf: make([]byte, bs)}
				for i := range n {
					pattern(u.Buf, i)
					if st, err := send.Queue(u); err != nil || st != Completed || u.Res != bs {
						done <- errors.Join(err, send.Explain(u), errors.New("send: not a whole block"))
						return
					}
				}
				u.Buf = u.Buf[:100] // a last block cut short by the close
				pattern(u.Buf, n)
				if _, err := send.Queue(u); err != nil {
					done <- err
					return
				}
				done <- send.(interface{ Stop() error }).Stop()
			}()
			u := &Unit{Op: OpRead, Buf: make([]byte, bs)}
			want := make([]byte, bs)
			for i := range n {
				if st, err := recv.Queue(u); err != nil || st != Completed {
					t.Fatalf("unit %d: %v %v", i, st, err)
				}
				pattern(want, i)
				if u.Res != bs || !bytes.Equal(u.Buf, want) {
					t.Fatalf("unit %d: Res %d, data equal %v", i, u.Res, bytes.Equal(u.Buf, want))
				}
			}
			if st, err := recv.Queue(u); err != nil || st != Completed || u.Res != 100 {
				t.Fatalf("the short last block: %v %v Res %d, want Completed with 100 bytes", st, err, u.Res)
			}
			if st, err := recv.Queue(u); !errors.Is(err, ErrEndOfStream) || st != Busy {
				t.Fatalf("after the close: %v %v, want Busy, ErrEndOfStream", st, err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A unit that waits for a peer that sends nothing gives up when Stop
// says the job is over: Busy, nothing done; so does a listener waiting
// for a connection that never comes, with an error.
func TestNetStop(t *testing.T) {
	var over atomic.Bool
	stop := func() bool { return over.Load() }
	recv, send := netPair(t, NetSpec{Proto: "tcp", Host: "127.0.0.1", Port: freePort(t, "tcp")}, stop)
	openBoth(t, recv, send)
	time.AfterFunc(100*time.Millisecond, func() { over.Store(true) })
	u := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
	start := time.Now()
	if st, err := recv.Queue(u); err != nil || st != Busy {
		t.Fatalf("Queue = %v, %v; want Busy, nil", st, err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 30*time.Second {
		t.Errorf("the wait lasted %v, want from 100ms (the stop) to a little more", d)
	}

	lone := newEngine(t, "net", Config{Net: &NetSpec{Proto: "tcp", Port: freePort(t, "tcp"), Listen: true}, Stop: stop})
	if _, err := lone.(Opener).Open(); !errors.Is(err, errStopped) {
		t.Errorf("Open with no peer, the job over: %v, want errStopped", err)
	}
}

// Over UDP the sender's open message starts the receiver, each unit is
// one datagram, fio's sequence trailer lets the receiver count the
// datagrams lost (here: two left out on purpose), and the sender's
// close message ends it.
func TestNetUDP(t *testing.T) {
	spec := NetSpec{Proto: "udp", Host: "127.0.0.1", Port: freePort(t, "udp"), Seq: true}
	recv, send := netPair(t, spec, nil)
	openBoth(t, recv, send)
	const bs = 256
	u := &Unit{Op: OpWrite, Buf: make([]byte, bs)}
	for i := range 10 {
		if i == 3 || i == 4 { // lost: the sequence moves on without them
			send.(*netEngine).seq++
			continue
		}
		if st, err := send.Queue(u); err != nil || st != Completed || u.Res != bs {
			t.Fatalf("send %d: %v %v %d", i, st, err, u.Res)
		}
	}
	if err := send.(interface{ Stop() error }).Stop(); err != nil {
		t.Fatal(err)
	}
	r := &Unit{Op: OpRead, Buf: make([]byte, bs)}
	got := 0
	for {
		st, err := recv.Queue(r)
		if errors.Is(err, ErrEndOfStream) {
			break
		}
		if err != nil || st != Completed || r.Res != bs {
			t.Fatalf("recv: %v %v %d", st, err, r.Res)
		}
		if seq := binary.LittleEndian.Uint64(r.Buf[bs-16:]); got < 3 && seq != uint64(got) {
			t.Errorf("datagram %d carries sequence %d", got, seq)
		}
		got++
	}
	if got != 8 {
		t.Errorf("received %d datagrams, want 8", got)
	}
	if d := recv.(*netEngine).DroppedIOs(); d != 2 {
		t.Errorf("DroppedIOs = %d, want 2", d)
	}
}

// pingpong: each block the sender sends comes back before its unit
// completes.
func TestNetPingPong(t *testing.T) {
	for _, proto := range []string{"tcp", "udp"} {
		t.Run(proto, func(t *testing.T) {
			spec := NetSpec{Proto: proto, Host: "127.0.0.1", Port: freePort(t, proto), PingPong: true, Seq: true}
			recv, send := netPair(t, spec, nil)
			openBoth(t, recv, send)
			const n, bs = 20, 512
			go func() {
				r := &Unit{Op: OpRead, Buf: make([]byte, bs)}
				for range n {
					if _, err := recv.Queue(r); err != nil || r.Res != bs {
						return
					}
				}
			}()
			u := &Unit{Op: OpWrite, Buf: make([]byte, bs)}
			for i := range n {
				pattern(u.Buf, i)
				sent := bytes.Clone(u.Buf)
				if st, err := send.Queue(u); err != nil || st != Completed || u.Res != bs {
					t.Fatalf("unit %d: %v %v %d", i, st, err, u.Res)
				}
				if proto == "udp" {
					copy(sent[bs-udpSeqTrailer:], u.Buf[bs-udpSeqTrailer:]) // the trailer went out in the block
				}
				if !bytes.Equal(u.Buf, sent) {
					t.Fatalf("unit %d: the block came back changed", i)
				}
			}
		})
	}
}

// The data path allocates nothing per unit.
func TestNetNoAllocs(t *testing.T) {
	recv, send := netPair(t, NetSpec{Proto: "tcp", Host: "127.0.0.1", Port: freePort(t, "tcp")}, func() bool { return false })
	openBoth(t, recv, send)
	go func() {
		r := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
		for {
			if _, err := recv.Queue(r); err != nil || r.Res <= 0 {
				return
			}
		}
	}()
	u := &Unit{Op: OpWrite, Buf: make([]byte, 4096)}
	if a := testing.AllocsPerRun(200, func() {
		if _, err := send.Queue(u); err != nil || u.Res != 4096 {
			t.Fatalf("send: %v %d", err, u.Res)
		}
	}); a != 0 {
		t.Errorf("%v allocations per unit, want 0", a)
	}
}
