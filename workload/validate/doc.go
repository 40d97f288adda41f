// Package validate holds the checks of a workload.Job, apart from the
// model they check (as Kubernetes keeps pkg/apis/core/validation beside
// pkg/apis/core): Job refuses what neither fio nor stortest runs and
// names the fio option at fault, Warnings tells what runs but not as the
// options suggest. Both look at the normalized job and run once per job,
// never per I/O.
//
// The errors are the model's: a *workload.FieldError, matched with
// errors.As, that wraps workload.ErrInvalid (and workload.ErrUnsupported
// for what stortest does not do). Each concept's checks sit in the file
// named for it (placement.go, net.go, buffers.go...), as its model does
// in package workload.
package validate
