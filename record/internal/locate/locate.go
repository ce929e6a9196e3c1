// Package locate finds where in a recording file a decoding or
// validation problem lies. encoding/json says what is wrong but not where:
// an unknown field has no offset, a type error's field has no exchange
// index. The scan walks the JSON along the document's Go type, in
// document order, to the first problem, and names it by path
// (exchanges[2].status) and byte offset; a YAML file is located through
// its syntax tree.
package locate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/a2amock/a2amock/internal/yamlnode"
)

// Doc is a document to locate problems in.
type Doc struct {
	// Src is the file as written, JSON the JSON it decodes from (Src
	// itself, or its YAML converted).
	Src, JSON []byte
	// YAML says Src is YAML.
	YAML bool
	// Root is the Go type the document decodes into.
	Root reflect.Type
	// Wants words the values of types the kinds do not name, for a
	// wrong-type error ("a duration such as \"250ms\"").
	Wants map[reflect.Type]string
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// errFound stops a scan at the path it looks for.
var errFound = errors.New("found")

// scanProblem is the first problem a scan met.
type scanProblem struct {
	path string
	// key is the unknown key, when that is the problem.
	key    string
	off    int64
	msg    string
	syntax bool
}

func (p *scanProblem) Error() string { return p.msg }

type scan struct {
	dec  *json.Decoder
	data []byte
	segs []string
	// want is a path whose value's offset the scan looks for (wantOff).
	want    string
	wantOff int64
	wants   map[reflect.Type]string
}

func (d Doc) newScan(want string) *scan {
	return &scan{dec: json.NewDecoder(bytes.NewReader(d.JSON)), data: d.JSON, want: want, wants: d.Wants}
}

func (s *scan) path() string { return strings.Join(s.segs, "") }

func (s *scan) push(key string) {
	if len(s.segs) > 0 {
		key = "." + key
	}
	s.segs = append(s.segs, key)
}

func (s *scan) pop() { s.segs = s.segs[:len(s.segs)-1] }

// next is the offset of the next token: the decoder's offset is the end of
// the last one, before the separators.
func (s *scan) next() int64 {
	i := s.dec.InputOffset()
	for i < int64(len(s.data)) && strings.IndexByte(" \t\r\n,:", s.data[i]) >= 0 {
		i++
	}
	return i
}

func (s *scan) syntaxErr(off int64, err error) error {
	return &scanProblem{path: s.path(), off: off, msg: err.Error(), syntax: true}
}

// value scans the next value, which decodes into t.
func (s *scan) value(t reflect.Type) error {
	off := s.next()
	if s.want != "" && s.path() == s.want {
		s.wantOff = off
		return errFound
	}
	var c byte
	if off < int64(len(s.data)) {
		c = s.data[off]
	}
	custom := t == rawMessageType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType)
	switch {
	case !custom && t.Kind() == reflect.Struct && c == '{':
		if _, err := s.dec.Token(); err != nil {
			return s.syntaxErr(off, err)
		}
		for s.dec.More() {
			koff := s.next()
			tok, err := s.dec.Token()
			if err != nil {
				return s.syntaxErr(koff, err)
			}
			key, _ := tok.(string)
			f, ok := field(t, key)
			if !ok {
				return &scanProblem{path: s.path(), key: key, off: koff, msg: fmt.Sprintf("unknown field %q", key)}
			}
			s.push(key)
			err = s.value(f.Type)
			s.pop()
			if err != nil {
				return err
			}
		}
		if _, err := s.dec.Token(); err != nil {
			return s.syntaxErr(s.next(), err)
		}
		return nil
	case !custom && t.Kind() == reflect.Slice && c == '[':
		if _, err := s.dec.Token(); err != nil {
			return s.syntaxErr(off, err)
		}
		for i := 0; s.dec.More(); i++ {
			s.segs = append(s.segs, "["+strconv.Itoa(i)+"]")
			err := s.value(t.Elem())
			s.pop()
			if err != nil {
				return err
			}
		}
		if _, err := s.dec.Token(); err != nil {
			return s.syntaxErr(s.next(), err)
		}
		return nil
	}
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return s.syntaxErr(off, err)
	}
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return &scanProblem{path: s.path(), off: off, msg: wording(err, s.wants)}
	}
	return nil
}

// field finds the struct field a key decodes into, as encoding/json does
// (the exact name, else one that differs in case only).
func field(t reflect.Type, key string) (reflect.StructField, bool) {
	var fold reflect.StructField
	folded := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f, true
		}
		if !folded && strings.EqualFold(name, key) {
			fold, folded = f, true
		}
	}
	return fold, folded
}

// wording says what a leaf value's decoding error means in the file's
// terms.
func wording(err error, wants map[reflect.Type]string) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	found := "a " + te.Value
	switch {
	case te.Value == "array":
		found = "a list"
	case te.Value == "object":
		found = "an object"
	case te.Value == "bool":
		found = "a boolean"
	case strings.HasPrefix(te.Value, "number "):
		found = "the " + te.Value
	}
	var want string
	switch k := te.Type.Kind(); {
	case wants[te.Type] != "":
		want = wants[te.Type]
	case k == reflect.String:
		want = "a string"
	case k >= reflect.Int && k <= reflect.Uint64:
		want = "a whole number"
	case k == reflect.Slice:
		want = "a list"
	case k == reflect.Struct || k == reflect.Map:
		want = "an object"
	default:
		want = te.Type.String()
	}
	return found + " where " + want + " belongs"
}

// DecodeError turns the decoder's error about d.JSON into a problem at
// the place the scan finds: its line and column (0 when none), the path of
// the value and what is wrong.
func (d Doc) DecodeError(decodeErr error) (line, col int, path, msg string) {
	var sp *scanProblem
	if !errors.As(d.newScan("").value(d.Root), &sp) {
		// The scan disagrees with the decoder: say what the decoder said.
		return 0, 0, "", strings.TrimPrefix(decodeErr.Error(), "json: ")
	}
	path, msg = sp.path, sp.msg
	switch {
	case sp.syntax:
		// The whole-document check words it best and says at which byte.
		var v any
		err := json.Unmarshal(d.JSON, &v)
		var se *json.SyntaxError
		off := int64(len(d.JSON))
		if errors.As(err, &se) && se.Error() != "unexpected end of JSON input" {
			msg, off = se.Error(), se.Offset-1
		} else {
			msg = "the file ends early (truncated?)"
		}
		line, col = lineCol(d.JSON, off)
	case d.YAML:
		line, col = yamlPosition(d.Src, sp.path, sp.key)
	default:
		line, col = lineCol(d.JSON, sp.off)
	}
	return line, col, path, msg
}

// Position finds the value at path in a document that decoded, or the
// nearest enclosing one that is written (a missing member's object).
func (d Doc) Position(path string) (line, col int) {
	if d.YAML {
		return yamlPosition(d.Src, path, "")
	}
	for {
		s := d.newScan(path)
		if s.value(d.Root) == errFound {
			return lineCol(d.JSON, s.wantOff)
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return 0, 0
		}
		path = path[:i]
	}
}

// lineCol is the 1-based line and column of the byte at off.
func lineCol(b []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(b))))
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// yamlPosition finds path (and, when key is not "", that key of the
// mapping at path) in a YAML file's syntax tree; it stops at the deepest
// node that exists.
func yamlPosition(src []byte, path, key string) (line, col int) {
	f, err := parser.ParseBytes(src, 0)
	if err != nil || len(f.Docs) == 0 {
		return 0, 0
	}
	n := f.Docs[0].Body
	at := n
	for _, seg := range splitPath(path) {
		n = descend(n, seg)
		if n == nil {
			return nodePos(at)
		}
		at = n
	}
	if key != "" {
		mvs, _ := yamlnode.MappingValues(yamlnode.Unwrap(n))
		for _, mv := range mvs {
			if yamlnode.ScalarText(mv.Key) == key {
				return nodePos(mv.Key)
			}
		}
	}
	return nodePos(at)
}

// splitPath splits exchanges[2].events[0] into exchanges, [2], events, [0].
func splitPath(path string) []string {
	var out []string
	for part := range strings.SplitSeq(path, ".") {
		for part != "" {
			i := strings.IndexByte(part[1:], '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			out = append(out, part[:i+1])
			part = part[i+1:]
		}
	}
	return out
}

// descend returns the member or element seg ("key" or "[i]") of n.
func descend(n ast.Node, seg string) ast.Node {
	n = yamlnode.Unwrap(n)
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		sq, ok := n.(*ast.SequenceNode)
		if err != nil || !ok || i < 0 || i >= len(sq.Values) {
			return nil
		}
		return sq.Values[i]
	}
	mvs, _ := yamlnode.MappingValues(n)
	for _, mv := range mvs {
		if yamlnode.ScalarText(mv.Key) == seg {
			return mv.Value
		}
	}
	return nil
}

// nodePos is where a reader looks for a node: a mapping's first key, else
// its token.
func nodePos(n ast.Node) (line, col int) {
	if n == nil {
		return 0, 0
	}
	if mvs, ok := yamlnode.MappingValues(yamlnode.Unwrap(n)); ok && len(mvs) > 0 {
		n = mvs[0].Key
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}
