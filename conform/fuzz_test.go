package conform

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseBaseline feeds expected-failures files to ParseBaseline against
// the default suite: whatever the input, it returns a baseline or an error,
// and never panics.
func FuzzParseBaseline(f *testing.F) {
	files, _ := filepath.Glob("../conformance/clients/*/expected-failures*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("never-terminal:\n  no-orphans: the SDK polls forever\n"))
	suite := DefaultSuite()
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline(data, "b.yaml", suite)
		if err == nil && b == nil {
			t.Fatal("no baseline and no error")
		}
	})
}

// FuzzParseSuite feeds suite files (scenario documents with a conform
// section) to ParseSuite: a suite or an error, never a panic.
func FuzzParseSuite(f *testing.F) {
	files, _ := filepath.Glob("suite/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSuite(data, "s.yaml")
		if err == nil && s == nil {
			t.Fatal("no suite and no error")
		}
	})
}
