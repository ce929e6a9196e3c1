package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var skipCases = []string{
	`0`, `-0`, `1.5e+3`, `-12.0E-1`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
	`""`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"tab\tin\"", "\"\xff\"", `"open`,
	`true`, `tru`, `false`, `null`, `nul`, `[]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`,
	`{"a":[{"b":{"c":[null,true,false,"d",-1.5]}}]}`, `[[[[[[[[]]]]]]]]`,
}

// TestSkipAgreesWithValid: Skip takes a document exactly when
// encoding/json calls it valid (within the depth it follows).
func TestSkipAgreesWithValid(t *testing.T) {
	t.Parallel()
	for _, doc := range skipCases {
		assert.Equal(t, json.Valid([]byte(doc)), skipsWhole(doc), "%q", doc)
	}
}

func skipsWhole(doc string) bool {
	s := New([]byte(doc))
	_, ok := s.Skip()
	return ok && s.End()
}

// FuzzSkip: whatever Skip takes whole, encoding/json calls valid, and a
// valid document shallow enough is taken.
func FuzzSkip(f *testing.F) {
	for _, doc := range skipCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		valid, took := json.Valid([]byte(doc)), skipsWhole(doc)
		if took && !valid {
			t.Fatalf("Skip took invalid JSON %q", doc)
		}
		if valid && !took && depth(doc) <= maxDepth {
			t.Fatalf("Skip refused valid JSON %q", doc)
		}
	})
}

// depth is an upper bound of the nesting of doc.
func depth(doc string) int {
	n := 0
	for _, c := range doc {
		if c == '[' || c == '{' {
			n++
		}
	}
	return n
}

// TestObjectRefusesWhatEncodingJSONReadsOtherwise: a repeated key, a key
// with an escape, a null value, and what String does with escapes.
func TestObjectRefusesWhatEncodingJSONReadsOtherwise(t *testing.T) {
	t.Parallel()
	skipAll := func(s *Scanner) func([]byte) bool {
		return func([]byte) bool { _, ok := s.Skip(); return ok }
	}
	for _, doc := range []string{`{"a":1,"a":2}`, `{"\u0061":1}`, `{"a":null}`, `{"a":1, "b": null}`} {
		s := New([]byte(doc))
		assert.False(t, s.Object(skipAll(s)), doc)
	}
	s := New([]byte(`{"a":1,"b":[2]}`))
	var keys []string
	assert.True(t, s.Object(func(k []byte) bool { keys = append(keys, string(k)); _, ok := s.Skip(); return ok }))
	assert.Equal(t, []string{"a", "b"}, keys)
	v, ok := New([]byte(`"line\nbreak \u00e9"`)).String()
	assert.True(t, ok)
	assert.Equal(t, "line\nbreak é", v)
	assert.True(t, Unknown([]byte("other"), "tenant"))
	assert.False(t, Unknown([]byte("TENANT"), "tenant"))
	assert.False(t, Unknown([]byte("\u212a"), "k"), "the Kelvin sign folds to k in encoding/json")
	s = New([]byte(`{"x":[1,{"y":2}],"TENANT":"t"}`))
	assert.False(t, s.Object(func(k []byte) bool { return s.SkipUnknown(k, "tenant") }), "TENANT is encoding/json's tenant")
	s = New([]byte(`{"x":[1,{"y":2}]}`))
	assert.True(t, s.Object(func(k []byte) bool { return s.SkipUnknown(k, "tenant") }), "x is skipped whole")
	assert.True(t, s.End())
}

// Members reads what Object refuses to decode: repeated keys and more
// than 16 members, in order.
func TestMembers(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"a":1,"a":2`)
	for i := range 20 {
		fmt.Fprintf(&b, `,"k%d":[%d]`, i, i)
	}
	b.WriteString("}")
	s := New([]byte(b.String()))
	var keys []string
	require.True(t, s.Members(func(k []byte) bool { keys = append(keys, string(k)); _, ok := s.Skip(); return ok }))
	assert.Len(t, keys, 22)
	assert.Equal(t, []string{"a", "a", "k0"}, keys[:3])
	assert.True(t, s.End())
	s = New([]byte(b.String()))
	assert.False(t, s.Object(func([]byte) bool { _, ok := s.Skip(); return ok }), "Object refuses the repeated key")
}
