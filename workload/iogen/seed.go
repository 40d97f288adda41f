package iogen

import "stortest.dev/workload"

// Seed returns the seed of the generators of one clone (0 <= clone <
// NumJobs): derived from RandSeed, or DefaultSeed, when RandRepeat holds
// (the default), else from entropy (the runner passes, say, a clock
// reading). Clones get distinct seeds, as fio's do.
func Seed(j *workload.Job, clone int, entropy uint64) uint64 {
	base := j.RandSeed
	switch {
	case base != 0:
	case j.RandRepeat == nil || *j.RandRepeat || j.AllRandRepeat:
		base = workload.DefaultSeed
	default:
		base = entropy
	}
	return SplitMix64(base ^ uint64(clone)*0x9e3779b97f4a7c15)
}

// splitmix is SplitMix64's finalizer: a bijective 64-bit mix used to
// derive independent seeds.
func SplitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
