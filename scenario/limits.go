package scenario

import (
	"io"
	"os"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
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

// checkDepth scans the file's tokens (the scanner is linear; the parser is
// not, in the nesting depth) and reports the first place nested deeper than
// MaxDepth, stopping there rather than tokenizing the rest. Flow
// collections count their brackets; block collections count the
// indentation levels of their "-" entries and keys, kept on a stack of
// columns as the parser does.
func checkDepth(ps *problems, data []byte) bool {
	var (
		sc    scanner.Scanner
		flow  int
		block []int // columns of the open block collections
		prev  *token.Token
	)
	sc.Init(string(data))
	for {
		tokens, err := sc.Scan()
		if err == io.EOF {
			return true
		}
		for _, tk := range tokens {
			col := 0
			switch tk.Type {
			case token.SequenceStartType, token.MappingStartType:
				flow++
			case token.SequenceEndType, token.MappingEndType:
				if flow > 0 {
					flow--
				}
			case token.DocumentHeaderType, token.DocumentEndType:
				flow, block = 0, block[:0]
			case token.SequenceEntryType:
				if flow == 0 && tk.Position != nil {
					col = tk.Position.Column
				}
			case token.MappingValueType:
				// A block mapping's level is its key's column.
				if flow == 0 && prev != nil && prev.Position != nil {
					col = prev.Position.Column
				}
			}
			prev = tk
			if col > 0 {
				for len(block) > 0 && block[len(block)-1] > col {
					block = block[:len(block)-1]
				}
				if len(block) == 0 || block[len(block)-1] < col {
					block = append(block, col)
				}
			}
			if flow+len(block) > MaxDepth {
				var pos position
				if tk.Position != nil {
					pos = position{Line: tk.Position.Line, Column: tk.Position.Column}
				}
				ps.add(pos, "", "nested more than %d levels deep, the most a scenario file may nest", MaxDepth)
				return false
			}
		}
	}
}

// checkExpansion counts the nodes the document stands for with every alias
// expanded, as a decoder would see it, and reports the alias at which the
// count passes MaxNodes. Anchors are measured once, so the count itself
// costs one pass over the tree whatever the expansion.
func checkExpansion(ps *problems, body ast.Node) bool {
	e := &expansion{anchors: map[string]int{}}
	e.size(body)
	if e.over == nil {
		return true
	}
	ps.add(posOf(e.over), "", "aliases expand to more than %d YAML nodes, the most a scenario file may stand for", MaxNodes)
	return false
}

type expansion struct {
	anchors map[string]int
	total   int
	over    ast.Node // the alias (or node) at which total passed MaxNodes
}

// size returns the expanded node count of n and adds n's own nodes (with
// aliases expanded) to the running total.
func (e *expansion) size(n ast.Node) int {
	if n == nil || e.over != nil {
		return 0
	}
	count := 1
	switch v := n.(type) {
	case *ast.DocumentNode:
		return e.size(v.Body)
	case *ast.TagNode:
		return e.size(v.Value)
	case *ast.AnchorNode:
		s := e.size(v.Value)
		if v.Name != nil {
			e.anchors[v.Name.GetToken().Value] = s
		}
		return s
	case *ast.AliasNode:
		if v.Value != nil {
			count = max(1, e.anchors[v.Value.GetToken().Value])
		}
		e.add(count, n)
		return count
	case *ast.MappingNode:
		e.add(1, n)
		for _, mv := range v.Values {
			count += e.size(mv)
		}
		return count
	case *ast.MappingValueNode:
		e.add(1, n)
		return count + e.size(v.Key) + e.size(v.Value)
	case *ast.SequenceNode:
		e.add(1, n)
		for _, x := range v.Values {
			count += e.size(x)
		}
		return count
	}
	e.add(1, n)
	return count
}

func (e *expansion) add(k int, at ast.Node) {
	e.total += k
	if e.total > MaxNodes && e.over == nil {
		e.over = at
	}
}
