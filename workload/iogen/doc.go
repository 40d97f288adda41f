// Package iogen makes the per-I/O decisions of a running job, each
// allocation-free: offsets (Offsets: sequential, random with or without a
// random map, zones, strides), block sizes (BlockSizes), directions of a
// mix (Mixer, seeded as fio seeds it), the pacing of a rate (Pacer, with
// Poisson gaps), random distributions (Sampler: zipf, pareto, normal,
// zoned), buffer contents (BufFill: compression, dedupe, patterns) and
// verify blocks (Verifier). Pattern combines them for one job.
package iogen
