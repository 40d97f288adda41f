// Package fioout writes fio's outputs of a workload.Result: the normal
// output (WriteSummary), the terse one (WriteTerse) and the JSON and
// json+ documents (WriteFioJSON), with fio 3.33's keys, order, units and
// number printing, and fio's group reporting. Each concept's part of the
// outputs sits in <concept>_out.go.
package fioout
