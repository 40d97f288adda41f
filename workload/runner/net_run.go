package runner

import (
	"stortest.dev/clock"
	"stortest.dev/engines"
	"stortest.dev/workload"
)

// The net engine's side of a job: its socket, and when its waits end.

// netSpec is the socket of clone of a net job: fio's options, the port
// of clone i being port+i as in fio.
func netSpec(j *workload.Job, clone int) *engines.NetSpec {
	s := &engines.NetSpec{
		Proto: j.NetProtocol(), Host: j.Filename, Listen: j.NetListens(), Send: j.RW.Writes(),
		PingPong: j.PingPong, NoDelay: j.NoDelay, TTL: j.NetTTL(), WindowSize: j.WindowSize, MSS: j.MSS,
		Interface: j.Interface, Size: j.Size, Seq: j.Verify == workload.VerifyNone,
	}
	if s.Proto != "unix" {
		s.Port = j.Port + clone
	}
	return s
}

// over reports whether the job is over: stopped, or past its runtime.
// The net engine asks it while it waits for its peer.
func (w *worker) over() bool {
	return (w.stop != nil && w.stop.Load()) || (w.deadline != 0 && clock.Now() >= w.deadline)
}

// netDrops records the datagrams a UDP receiver found missing (fio's
// drop_ios).
func (w *worker) netDrops() {
	if d, ok := w.eng.(interface{ DroppedIOs() uint64 }); ok {
		w.res.Dirs[workload.DirRead].DropIOs = d.DroppedIOs()
	}
}
