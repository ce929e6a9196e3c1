// Package schemacheck validates wire JSON against the official A2A JSON
// Schemas vendored in schema/ (see schema/SOURCES.md). It is test support:
// codecs and servers call Require in their tests so that every byte a2amock
// emits is checked against the spec artifacts rather than against our own
// reading of them.
package schemacheck

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/a2amock/a2amock/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schema/*.json
var schemaFS embed.FS

// dialectSchema describes where a dialect's schema lives (the file its
// descriptor names). Its definitions are keyed by "$defs" or, in draft-07
// files (v0.2, v0.3), by "definitions".
type dialectSchema struct {
	file string

	once sync.Once
	defs map[string]*jsonschema.Schema
	err  error
}

// schemas holds one dialectSchema per dialect with a SchemaFile.
var schemas = func() map[wire.Dialect]*dialectSchema {
	m := map[wire.Dialect]*dialectSchema{}
	for _, d := range wire.Descriptors() {
		if d.SchemaFile != "" {
			m[d.Dialect] = &dialectSchema{file: d.SchemaFile}
		}
	}
	return m
}()

// compile builds every definition of the dialect's schema at once, so that
// after the first call the map is read-only and needs no locking.
func (s *dialectSchema) compile() {
	raw, err := schemaFS.ReadFile("schema/" + s.file)
	if err != nil {
		s.err = err
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		s.err = fmt.Errorf("schemacheck: parse %s: %w", s.file, err)
		return
	}
	top, ok := doc.(map[string]any)
	if !ok {
		s.err = fmt.Errorf("schemacheck: %s is not a JSON object", s.file)
		return
	}
	defsAt := "$defs"
	if _, ok := top[defsAt]; !ok {
		defsAt = "definitions"
	}
	defs, _ := top[defsAt].(map[string]any)
	if len(defs) == 0 {
		s.err = fmt.Errorf("schemacheck: %s has no $defs or definitions", s.file)
		return
	}
	url := "https://a2amock.invalid/schema/" + s.file
	c := jsonschema.NewCompiler()
	// Timestamps are declared with format "date-time"; asserting formats
	// catches non-RFC3339 times, which 2020-12 would otherwise only annotate.
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		s.err = fmt.Errorf("schemacheck: add %s: %w", s.file, err)
		return
	}
	s.defs = make(map[string]*jsonschema.Schema, len(defs))
	for name := range defs {
		sch, err := c.Compile(url + "#/" + defsAt + "/" + name)
		if err != nil {
			s.err = fmt.Errorf("schemacheck: compile %s#%s: %w", s.file, name, err)
			return
		}
		s.defs[name] = sch
	}
}

// Validate checks doc against the definition def (for example "Task",
// "AgentCard", "StreamResponse") of dialect d's official JSON Schema. For v1.0
// it checks only what the generated schema expresses; see CheckV10Rules for
// the rest.
func Validate(d wire.Dialect, def string, doc []byte) error {
	s := schemas[d]
	if s == nil {
		return fmt.Errorf("schemacheck: no schema for dialect %q", d)
	}
	s.once.Do(s.compile)
	if s.err != nil {
		return s.err
	}
	sch := s.defs[def]
	if sch == nil {
		return fmt.Errorf("schemacheck: dialect %s has no definition %q (have %s)", d, def, strings.Join(defNames(s.defs), ", "))
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("schemacheck: document is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("schemacheck: %s %s: %w", d, def, err)
	}
	return nil
}

func defNames(m map[string]*jsonschema.Schema) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Require fails the test when doc is not a valid def of dialect d. For V10 it
// also applies CheckV10Rules. Like t.Fatal it must be called from the test's
// own goroutine.
func Require(t testing.TB, d wire.Dialect, def string, doc []byte) {
	t.Helper()
	err := Validate(d, def, doc)
	if err == nil && d == wire.V10 {
		err = CheckV10Rules(def, doc)
	}
	if err != nil {
		t.Fatalf("%s is not a valid v%s %s:\n%v\ndocument:\n%s", def, d, def, err, indent(doc))
	}
}

func indent(doc []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, doc, "", "  ") != nil {
		return string(doc)
	}
	return b.String()
}
