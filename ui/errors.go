package ui

import (
	"fmt"
	"strconv"
)

// Error is a report input that is neither a journal nor a conform report.
// Line and Column (1-based) say where in the file, when one place is at
// fault; 0 otherwise.
type Error struct {
	Msg          string
	Line, Column int
}

// Error returns the message, after the position when there is one.
func (e *Error) Error() string {
	if e.Line > 0 {
		return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column) + ": " + e.Msg
	}
	return e.Msg
}

// errorAt is the error msg about the byte at offset in data (0-based).
func errorAt(data []byte, offset int64, msg string) error {
	offset = max(0, min(offset, int64(len(data))))
	line, col := 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{Msg: msg, Line: line, Column: col}
}

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }
