package iogen

import (
	"testing"

	"stortest.dev/workload"
)

func TestSeed(t *testing.T) {
	j := workload.Job{Name: "x"}
	if Seed(&j, 0, 1) != Seed(&j, 0, 2) {
		t.Error("repeatable job: the seed depends on entropy")
	}
	if Seed(&j, 0, 0) == Seed(&j, 1, 0) {
		t.Error("clones share a seed")
	}
	k := workload.Job{Name: "x", RandSeed: 99}
	if Seed(&k, 0, 0) == Seed(&j, 0, 0) {
		t.Error("randseed does not change the seed")
	}
	r := workload.Job{Name: "x", RandRepeat: workload.Bool(false)}
	if Seed(&r, 0, 1) == Seed(&r, 0, 2) {
		t.Error("randrepeat=0: the seed ignores entropy")
	}
	rs := workload.Job{Name: "x", RandRepeat: workload.Bool(false), RandSeed: 7}
	if Seed(&rs, 0, 1) != Seed(&rs, 0, 2) {
		t.Error("an explicit randseed must win over randrepeat=0")
	}
}
