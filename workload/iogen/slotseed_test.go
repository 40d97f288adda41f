package iogen

import (
	"testing"

	"stortest.dev/workload"
)

// TestSlotSeeds: the file service and the direction mix are seeded
// from their own fio slots (5 and 4): from randseed without restarting,
// else from fio's default seed restarting each loop, and under
// randrepeat=0 from entropy, the file service's apart from the mix's.
func TestSlotSeeds(t *testing.T) {
	for _, c := range []struct {
		name string
		seed func(*workload.Job, int, uint64) (uint32, bool)
		slot int
		ent  uint64
	}{
		{"FileSeed", FileSeed, 5, 7 ^ 0xf11e},
		{"MixSeed", MixSeed, 4, 7},
	} {
		j := workload.Job{RandSeed: 99}
		if s, r := c.seed(&j, 3, 7); s != uint32(fioSeed(99, 3, c.slot)) || r {
			t.Errorf("%s with randseed: %d, %v", c.name, s, r)
		}
		j.RandSeed = 0
		if s, r := c.seed(&j, 3, 7); s != uint32(fioSeed(workload.DefaultSeed, 3, c.slot)) || !r {
			t.Errorf("%s by default: %d, %v", c.name, s, r)
		}
		j.RandRepeat = workload.Bool(false)
		if s, r := c.seed(&j, 3, 7); s != uint32(SplitMix64(c.ent)) || r {
			t.Errorf("%s with randrepeat=0: %d, %v", c.name, s, r)
		}
	}
}
