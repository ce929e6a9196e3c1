package scenario

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a scenario file, at a position.
type Problem struct {
	// File is the file name given to Parse or Load.
	File string
	// Line and Column are 1-based; 0 when the problem has no position
	// (e.g. one the server reports about the whole configuration).
	Line, Column int
	// Path locates the value in the document, e.g. agents[0].timelines[1].
	Path string
	// Message says what is wrong and, where there is a choice, the valid
	// choices.
	Message string
	// ofKey marks a problem with one of the keys of the mapping at Path
	// (unknown, twice, missing) rather than with its value; missing is
	// the path of a missing key's value.
	ofKey   bool
	missing string
}

// String renders the problem as file:line:col: path: message.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error lists every problem found in a scenario file. Parse, Load and
// Config return it; nothing is served from a file that has one.
type Error struct {
	Problems []Problem

	// partial is the file decoded leniently despite its structural
	// problems, when it could be, so Check can add the semantic ones.
	partial *Scenario
}

// Error renders one problem per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// problems collects Problems for one file.
type problems struct {
	file string
	list []Problem
}

func (ps *problems) add(pos position, path, format string, args ...any) {
	ps.list = append(ps.list, Problem{File: ps.file, Line: pos.Line, Column: pos.Column, Path: path, Message: fmt.Sprintf(format, args...)})
}

// addKey records a problem with a key of the mapping at path; missing is
// the path of the key's value when the key is missing, else "".
func (ps *problems) addKey(pos position, path, missing, format string, args ...any) {
	ps.add(pos, path, format, args...)
	ps.list[len(ps.list)-1].ofKey, ps.list[len(ps.list)-1].missing = true, missing
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	return &Error{Problems: ps.list}
}
