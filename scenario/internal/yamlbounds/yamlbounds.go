// Package yamlbounds measures what makes a YAML file expensive to parse or
// decode — nesting depth and alias expansion — without building or
// expanding it, so that package scenario can refuse a hostile file (a very
// deep flow sequence, a "billion laughs" alias bomb) with a positioned
// problem before the YAML parser or decoder spends memory on it.
package yamlbounds

import (
	"io"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// TooDeep scans the file's tokens (the scanner is linear; the parser is
// not, in the nesting depth) and reports the first place nested deeper than
// maxDepth, stopping there rather than tokenizing the rest. Flow
// collections count their brackets; block collections count the
// indentation levels of their "-" entries and keys, kept on a stack of
// columns as the parser does.
func TooDeep(data []byte, maxDepth int) (line, col int, over bool) {
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
			return 0, 0, false
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
			if flow+len(block) > maxDepth {
				if tk.Position != nil {
					return tk.Position.Line, tk.Position.Column, true
				}
				return 0, 0, true
			}
		}
	}
}

// Expansion counts the nodes the document stands for with every alias
// expanded, as a decoder would see it, and returns the alias (or node) at
// which the count passes limit, or nil. Anchors are measured once, so the
// count itself costs one pass over the tree whatever the expansion.
func Expansion(body ast.Node, limit int) ast.Node {
	e := &expansion{limit: limit, anchors: map[string]int{}}
	e.size(body)
	return e.over
}

type expansion struct {
	limit   int
	anchors map[string]int
	total   int
	over    ast.Node // the alias (or node) at which total passed limit
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
	if e.total > e.limit && e.over == nil {
		e.over = at
	}
}
