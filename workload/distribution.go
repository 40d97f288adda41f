package workload

import "stortest.dev/fio"

// Distribution is fio's random_distribution, a value of fio's syntax
// (package fio has it, with its parser ParseDistribution): the Job's
// RandomDistribution.
type Distribution = fio.Distribution

// DistKind is the kind of a Distribution.
type DistKind = fio.DistKind

// The kinds of fio's random distributions.
const (
	DistRandom   = fio.DistRandom
	DistZipf     = fio.DistZipf
	DistPareto   = fio.DistPareto
	DistNormal   = fio.DistNormal
	DistZoned    = fio.DistZoned
	DistZonedAbs = fio.DistZonedAbs
)
