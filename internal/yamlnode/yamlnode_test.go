package yamlnode

import (
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// value parses "v: <src>" and returns the node under v.
func value(t *testing.T, src string) ast.Node {
	t.Helper()
	f, err := parser.ParseBytes([]byte("v: "+src+"\n"), 0)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	mv, ok := MappingValues(f.Docs[0].Body)
	if !ok || len(mv) != 1 {
		t.Fatalf("%q: not a mapping of one", src)
	}
	return mv[0].Value
}

func TestValuelessTag(t *testing.T) {
	for src, want := range map[string]string{"!": "!", "!!seq": "!!seq", "&a !": "!", "!!null ~": "!!null", "! [a]": "", "!!str x": "", "x": "", "&a [x]": ""} {
		got := ""
		if tag := ValuelessTag(value(t, src)); tag != nil {
			got = tag.Start.Value
		}
		if got != want {
			t.Errorf("ValuelessTag(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestDescribeUnderTags(t *testing.T) {
	for src, want := range map[string]string{"! [a]": "a list", "&a {k: v}": "a mapping", "!!str x": `the string "x"`, "12": "the number 12", "true": "the boolean true"} {
		if got := Describe(Unwrap(value(t, src))); got != want {
			t.Errorf("Describe(%q) = %q, want %q", src, got, want)
		}
	}
}
