package engines

import "testing"

func TestNull(t *testing.T) {
	e := newEngine(t, "null", Config{})
	if e.Flags()&FlagSync == 0 {
		t.Errorf("null at depth 1: flags %v, want sync", e.Flags())
	}
	u := Unit{Op: OpRead, Buf: make([]byte, 100), Res: -1}
	if st, err := e.Queue(&u); st != Completed || err != nil || u.Res != 100 {
		t.Errorf("depth 1: %v %v Res %d", st, err, u.Res)
	}

	e = newEngine(t, "null", Config{Depth: 3})
	units := make([]Unit, 4)
	for i := range 3 {
		units[i] = Unit{Op: OpWrite, Buf: make([]byte, 10*(i+1)), Res: -1}
		if st, err := e.Queue(&units[i]); st != Queued || err != nil {
			t.Fatalf("Queue %d = %v, %v", i, st, err)
		}
	}
	if st, _ := e.Queue(&units[3]); st != Busy {
		t.Errorf("4th Queue at depth 3 = %v, want busy", st)
	}
	if n, _ := e.GetEvents(0, 0, 0); n != 0 {
		t.Errorf("GetEvents before Commit = %d, want 0", n)
	}
	if err := e.Commit(); err != nil {
		t.Fatal(err)
	}
	n, _ := e.GetEvents(1, 2, 0)
	if n != 2 || e.Event(0) != &units[0] || e.Event(1) != &units[1] {
		t.Fatalf("GetEvents(1, 2) = %d, want units 0 and 1", n)
	}
	if n, _ := e.GetEvents(1, 0, 0); n != 1 || e.Event(0) != &units[2] || units[2].Res != 30 {
		t.Fatalf("second GetEvents = %d (Res %d), want unit 2 with Res 30", n, units[2].Res)
	}
	units[3].Op = OpFsync
	if st, _ := e.Queue(&units[3]); st != Queued {
		t.Errorf("Queue after reaping = %v, want queued", st)
	}
	e.Commit()
	if n, _ := e.GetEvents(1, 0, 0); n != 1 || units[3].Res != 0 {
		t.Errorf("fsync: n %d Res %d, want 1, 0", n, units[3].Res)
	}
}
