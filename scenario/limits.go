package scenario

import (
	"io"
	"os"

	"github.com/a2amock/a2amock/scenario/internal/yamlbounds"
	"github.com/goccy/go-yaml/ast"
)

// Bounds on a scenario file, checked before and while it is parsed so that
// a hostile or broken file (a very deep flow sequence, a "billion laughs"
// alias bomb) is answered with a positioned problem instead of exhausting
// memory inside the YAML parser. A real scenario is a few kilobytes deep
// by a dozen levels; these leave a wide margin.
const (
	// MaxFileBytes is the largest scenario file read: 1 MiB.
	MaxFileBytes = 1 << 20
	// MaxDepth is the deepest nesting of mappings and lists, block and flow
	// together.
	MaxDepth = 64
	// MaxNodes is the most YAML nodes a file may stand for once every alias
	// is expanded (an alias counts as a copy of what its anchor holds).
	MaxNodes = 100_000
)

// readBounded reads at most MaxFileBytes+1 bytes of path, so that a huge or
// endless file (a device, a FIFO) is never read whole.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// positionAt returns the line and column of byte offset off in data.
func positionAt(data []byte, off int) position {
	pos := position{Line: 1, Column: 1}
	for _, b := range data[:min(off, len(data))] {
		if b == '\n' {
			pos.Line++
			pos.Column = 1
		} else {
			pos.Column++
		}
	}
	return pos
}

// checkSize reports a file over MaxFileBytes at the position where it
// crosses the bound.
func checkSize(ps *problems, data []byte) bool {
	if len(data) <= MaxFileBytes {
		return true
	}
	ps.add(positionAt(data, MaxFileBytes), "", "the file is larger than %d bytes (1 MiB), the most a scenario file may hold", MaxFileBytes)
	return false
}

// checkDepth reports the first place nested deeper than MaxDepth.
func checkDepth(ps *problems, data []byte) bool {
	line, col, over := yamlbounds.TooDeep(data, MaxDepth)
	if !over {
		return true
	}
	ps.add(position{Line: line, Column: col}, "", "nested more than %d levels deep, the most a scenario file may nest", MaxDepth)
	return false
}

// checkExpansion reports the alias at which the document, aliases expanded,
// passes MaxNodes YAML nodes.
func checkExpansion(ps *problems, body ast.Node) bool {
	over := yamlbounds.Expansion(body, MaxNodes)
	if over == nil {
		return true
	}
	ps.add(posOf(over), "", "aliases expand to more than %d YAML nodes, the most a scenario file may stand for", MaxNodes)
	return false
}
