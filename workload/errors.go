package workload

import (
	"errors"
	"strings"

	"stortest.dev/fio"
)

// ErrUnsupported matches what stortest does not do: an fio option, engine
// or value it refuses rather than runs differently. It is package fio's,
// whose value parsers refuse such values too.
var ErrUnsupported = fio.ErrUnsupported

// msgError is an error with its own message that matches a sentinel.
type msgError struct {
	msg string
	is  error
}

func (e *msgError) Error() string { return e.msg }
func (e *msgError) Unwrap() error { return e.is }

// unsupported is the error of a feature stortest does not have.
func Unsupported(what string) error {
	return &msgError{what + " is not supported by stortest", ErrUnsupported}
}

// valueError marks a bad option value: it matches ErrInvalid too.
type valueError struct{ err error }

func (e *valueError) Error() string   { return e.err.Error() }
func (e *valueError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// orList joins names as "a", "a or b", "a, b or c".
func OrList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newMsgError is an error with message msg that matches is.
func NewMsgError(msg string, is error) error { return &msgError{msg, is} }

// classified reports whether err already says what kind of error it is:
// a message that matches a sentinel, or a bad value.
func Classified(err error) bool {
	var me *msgError
	var ve *valueError
	return errors.As(err, &me) || errors.As(err, &ve) || errors.Is(err, ErrUnsupported)
}
