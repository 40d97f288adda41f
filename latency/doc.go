// Package latency records latencies the way fio does and reports the same
// numbers fio reports.
//
// A Histogram uses fio's log-linear layout: exact buckets below 128 ns,
// then 64 buckets per power of two, so a bucket is at most 1/64 of its
// value wide. fio fixes the layout at 29 groups (1856 buckets), which
// clips everything at or above 2^34 ns (17.18 s) into the last bucket;
// here the group count is a choice (LongGroups reaches 36 minutes) and
// clipped values are counted, so a long stall is never silently lost.
//
// Percentiles follow fio 3.33 exactly: a percentile is the representative
// value of the first bucket whose running count reaches a threshold, and
// the threshold is computed with the long-double arithmetic of the fio
// binary (FioThreshold), which differs from float64 for some counts.
// PercentileInterpolated gives a value inside the bucket instead.
//
// Histograms add (Merge) and subtract (Sub), which is how per-interval
// histograms are made from running ones and how jobs and hosts combine:
// percentiles are never averaged. ReadFio and FromBins rebuild histograms
// from fio's json+ "bins"; AppendBinsJSON writes them back.
//
// Add, Merge, Sub and CopyFrom allocate nothing.
package latency
