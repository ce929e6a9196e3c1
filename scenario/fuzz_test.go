package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2amock/a2amock/scenario"
)

// FuzzParse feeds scenario text to Parse and Config: whatever the input,
// they return a scenario or a *scenario.Error whose problems all name the
// file, and never panic, hang or exhaust memory.
func FuzzParse(f *testing.F) {
	f.Add(scenario.DefaultYAML())
	files, _ := filepath.Glob("../examples/incidents/*.yaml")
	suite, _ := filepath.Glob("../conform/suite/*.yaml")
	for _, p := range append(files, suite...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(billionLaughs()))
	f.Add([]byte("agents: [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]\n"))
	f.Add([]byte("agents:\n- - - - - - - x\n"))
	f.Add([]byte("agents:\n  - name: a\n    behaviors: [never-terminal, {name: skip-working, params: {skill: x}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse(data, "fuzz.yaml")
		if err == nil {
			_, err = s.Config(nil)
		}
		if err == nil {
			return
		}
		var se *scenario.Error
		if !errors.As(err, &se) {
			return // Config may also return errors of the server's checks
		}
		if len(se.Problems) == 0 {
			t.Fatalf("an *Error with no problem for %q", data)
		}
		for _, p := range se.Problems {
			if p.File != "fuzz.yaml" || p.Message == "" {
				t.Fatalf("problem %+v does not name the file or says nothing", p)
			}
		}
	})
}
