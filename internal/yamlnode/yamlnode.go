// Package yamlnode reads go-yaml's syntax tree for the scenario checker and
// conform's baseline parser: what a node is under its tags and anchors, and
// how to name it in a message.
package yamlnode

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Unwrap returns the value under n's tags and anchors (nil when a tag has
// none).
func Unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

// ValuelessTag returns the tag of n (through anchors) that has no value
// after it, or a null one ("key: !", "key: !!seq" and nothing more), or nil.
func ValuelessTag(n ast.Node) *ast.TagNode {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			if _, null := v.Value.(*ast.NullNode); null || v.Value == nil {
				return v
			}
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return nil
		}
	}
}

// MappingValues returns the key-value pairs of a mapping node (a single
// pair is a mapping of one), and false when n is not a mapping.
func MappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// IsScalar reports whether n is a string, number, boolean or literal.
func IsScalar(n ast.Node) bool {
	switch n.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.LiteralNode, *ast.InfinityNode, *ast.NanNode:
		return true
	}
	return false
}

// Describe names what a node is, for "expected X, found Y" messages.
func Describe(n ast.Node) string {
	switch v := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return fmt.Sprintf("the string %q", ScalarText(v))
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "the number " + ScalarText(v)
	case *ast.BoolNode:
		return "the boolean " + ScalarText(v)
	}
	return "a " + n.Type().String()
}

// ScalarText returns a scalar's text as written (a string's value, a
// literal's body, any other token's value).
func ScalarText(n ast.Node) string {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value
	case *ast.LiteralNode:
		return v.Value.Value
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// IntegerProblem says what is wrong with n where a non-negative 64-bit
// integer belongs (unsigned: a uint64, else an int64). An integer written
// unquoted that the field cannot hold is out of range, with the range
// given: go-yaml reads one past 64 bits as a plain string, which
// "found the string" would misname. Anything else is not an integer.
func IntegerProblem(n ast.Node, unsigned bool) string {
	tk := n.GetToken()
	if tk != nil && IsScalar(n) && tk.Type != token.DoubleQuoteType && tk.Type != token.SingleQuoteType {
		text := ScalarText(n)
		v, err := strconv.ParseInt(text, 0, 64)
		if unsigned {
			_, uerr := strconv.ParseUint(strings.TrimPrefix(text, "-"), 0, 64)
			if err == nil && v < 0 || errors.Is(uerr, strconv.ErrRange) {
				return fmt.Sprintf("%s is out of range: use 0 to %d", text, uint64(math.MaxUint64))
			}
		} else if errors.Is(err, strconv.ErrRange) {
			return fmt.Sprintf("%s is out of range: use %d to %d", text, math.MinInt64, math.MaxInt64)
		}
	}
	return "expected a non-negative integer, found " + Describe(n)
}
