package ui

import (
	"fmt"
	"strconv"
)

// Error is a report input that is neither a journal nor a conform report.
type Error struct{ Msg string }

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
