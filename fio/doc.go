// Package fio holds fio's formats, as a leaf that imports nothing of
// stortest: the value syntax of fio's options (sizes, times, booleans,
// with one reading of every size suffix, fio 3.33's), the job-file lexer
// (ParseJobFile and Lexer: sections, options with their file and line,
// include, ${NAME}), every fio 3.33 option name (IsOption), the values
// with a syntax of their own (Distribution, ParseVerifyPattern,
// ParseBufferPattern, ParseCPUList), fio's I/O log (version 2 and 3:
// ReadIOLog, LoadIOLog, IOLogWriter), and the one
// reader of fio's JSON output (leading text skipped, nan and inf read as
// null). What an option means is not this package's: workload applies
// the options it takes to a Job.
// The packages that speak fio (workload's job files and JSON, latency's
// json+ bins, steady's criteria and steady-state output, baselines'
// import) take their values and documents from here, so that "4KiB" or a
// bare nan mean the same thing everywhere.
//
// Sizes follow what fio 3.33 computes with its default kb_base=1024
// (checked with --ioengine=null runs of size=): a decimal or
// 0x-hexadecimal number and an optional case-insensitive suffix, where
// k, m, g, t and p, alone or followed by b or by i, are powers of 1024,
// and followed by ib ("KiB") powers of 1000: fio's compatibility mode
// reads the IEC suffixes the opposite way from the standard, and fio's
// own documentation says "4ki" is 4000 where fio 3.33 reads 4096.
// Fractions, signs, percentages and trailing text are errors here,
// though fio truncates or ignores them.
package fio
