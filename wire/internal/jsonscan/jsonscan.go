// Package jsonscan reads the common shape of a request without
// reflection: a strict JSON scanner that walks objects member by member,
// reads plain strings, and measures any value it skips. The decoders use
// it for a fast path and fall back to encoding/json for anything it does
// not take (escapes in keys, null, a key spelt in another case, a repeated
// key, a type it is not asked for), so encoding/json stays the one judge
// of errors and of every case off the path; whatever the fast path does
// take it must read exactly as encoding/json would (the decoders' tests
// compare both on random and fuzzed input).
package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Scanner reads one JSON document. Every method reports false when what
// it meets is not what it was asked for, or not valid JSON; the caller
// then gives up on the fast path.
type Scanner struct {
	b []byte
	i int
}

// New returns a scanner of b.
func New(b []byte) *Scanner { return &Scanner{b: b} }

// maxDepth bounds the nesting Skip follows, far below encoding/json's
// (10,000); deeper documents take the slow path.
const maxDepth = 64

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek returns the next byte that is not white space (0 at the end).
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.b)
}

// Object reads an object, calling member for each key with the scanner
// at the member's value; member must read the value (or Skip it) and
// report whether it did. Keys must be plain strings (no escapes) and
// appear once, and no value may be null (what encoding/json makes of null
// depends on the field's type: the fast path leaves it to encoding/json).
// A key is a slice of the document: comparing it, or switching on
// string(key), makes no string.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	var seen [16][]byte
	n := 0
	return s.object(s.plainAt, func(key []byte) bool {
		if n == len(seen) {
			return false
		}
		for _, k := range seen[:n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen[n] = key
		n++
		return !s.isNull() && member(key)
	})
}

// Members reads an object of any number of members, repeated keys
// included, calling member with the scanner at each value (which member
// must read); unlike Object it is for looking at what was sent, not for
// decoding it as encoding/json would.
func (s *Scanner) Members(member func(key []byte) bool) bool {
	return s.object(s.plainAt, member)
}

// object reads an object whose keys readKey reads, calling member with
// the scanner at each value.
func (s *Scanner) object(readKey func() ([]byte, bool), member func(key []byte) bool) bool {
	if s.Peek() != '{' {
		return false
	}
	s.i++
	if s.Peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := readKey()
		if !ok || s.Peek() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// Array reads an array, calling elem with the scanner at each element.
func (s *Scanner) Array(elem func() bool) bool {
	if s.Peek() != '[' {
		return false
	}
	s.i++
	if s.Peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// plainAt reads a string with no escape and no control byte whose bytes
// are valid UTF-8 (encoding/json gives those back as they are): the bytes
// between the quotes, the scanner past the closing one.
func (s *Scanner) plainAt() ([]byte, bool) {
	if s.Peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			raw := s.b[start:j]
			if !ascii && !utf8.Valid(raw) {
				return nil, false
			}
			s.i = j + 1
			return raw, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// PlainBytes reads a string with no escape, no control byte and valid
// UTF-8 and returns its bytes (a slice of the document): a caller that
// only compares them, or looks them up in a map, makes no string.
func (s *Scanner) PlainBytes() ([]byte, bool) {
	at := s.i
	if _, ok := s.plainAt(); ok {
		return s.b[at+1 : s.i-1], true
	}
	s.i = at
	return nil, false
}

// String reads a string value: a plain one directly, one with escapes
// through encoding/json (which unescapes it as it always does).
func (s *Scanner) String() (string, bool) {
	at := s.i
	if raw, ok := s.plainAt(); ok {
		return string(raw), true
	}
	s.i = at
	if s.Peek() != '"' {
		return "", false
	}
	raw, ok := s.Skip()
	if !ok {
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// Strings reads an array of strings (not null).
func (s *Scanner) Strings() ([]string, bool) {
	out := []string{}
	ok := s.Array(func() bool {
		v, ok := s.String()
		out = append(out, v)
		return ok
	})
	return out, ok
}

// Bool reads true or false.
func (s *Scanner) Bool() (bool, bool) {
	switch s.Peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// isNull reports whether the next value is null (without reading it).
func (s *Scanner) isNull() bool {
	s.ws()
	return len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null"
}

func (s *Scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// Skip reads any one JSON value and returns its bytes (a slice of the
// document, not a copy).
func (s *Scanner) Skip() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip(0) {
		return nil, false
	}
	return s.b[start:s.i], true
}

func (s *Scanner) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c := s.Peek(); {
	case c == '{':
		anyKey := func() ([]byte, bool) { return nil, s.Peek() == '"' && s.skipString() }
		return s.object(anyKey, func([]byte) bool { return s.skip(depth + 1) })
	case c == '[':
		return s.Array(func() bool { return s.skip(depth + 1) })
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.skipNumber()
	}
	return false
}

// skipString reads a string as JSON allows it: escapes checked, no
// control bytes. (Invalid UTF-8 is JSON encoding/json accepts.)
func (s *Scanner) skipString() bool {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.b)-s.i < 4 {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) skipNumber() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *Scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// Unknown reports whether key is a member encoding/json would leave out
// of a struct whose fields are named known: it is none of them, and no
// spelling of one in another case (encoding/json matches keys without
// regard to case). A key with bytes beyond ASCII is never called unknown:
// encoding/json's folding also matches the Kelvin sign to k and the long
// s to s.
func Unknown(key []byte, known ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, k := range known {
		if len(k) == len(key) && strings.EqualFold(k, string(key)) {
			return false
		}
	}
	return true
}

// SkipUnknown skips the value of a member encoding/json would leave out of
// a struct whose fields are named known (Unknown); false for a key it would
// match to one of them.
func (s *Scanner) SkipUnknown(key []byte, known ...string) bool {
	if !Unknown(key, known...) {
		return false
	}
	_, ok := s.Skip()
	return ok
}
