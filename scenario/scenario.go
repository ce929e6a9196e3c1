// Package scenario reads scenario files: YAML documents that describe a fake
// A2A server — its agents, their cards, their misbehaviors and the exact
// timelines they play — so that an incident seen in production can be
// committed next to a client's tests and replayed in CI or in-process.
//
// A file is checked whole: Parse reports every unknown key, wrong type, bad
// value and bad duration with its line and column, and Config every unknown
// behavior, unknown skill and bad regular expression, so nothing is served
// from a file that has a problem. The format's JSON Schema (Schema, shipped
// as docs/scenario.schema.json) lets editors complete and check it.
package scenario

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario/internal/lenient"
)

//go:generate go run ./internal/genschema ../docs/scenario.schema.json

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the text of the default scenario: one honest agent at
// the root.
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// Default returns the scenario a2amock serve uses without --scenario: one
// honest agent at the root.
func Default() *Scenario {
	s, err := Parse(defaultYAML, "default.yaml")
	if err != nil {
		// The embedded file is checked by the package's tests.
		panic("scenario: the embedded default scenario is invalid: " + err.Error())
	}
	return s
}

// Load reads and parses the scenario file at path.
func Load(path string) (*Scenario, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, &Error{Problems: []Problem{{File: path, Message: err.Error()}}}
	}
	return Parse(data, path)
}

// Parse parses a scenario file's text; filename is used in problem
// positions only. Every structural problem (syntax, unknown key, wrong type,
// bad enum value, bad duration, missing key) is reported at once in an
// *Error; semantic checks that need the behavior catalogue are Config's.
// A file over MaxFileBytes, nested deeper than MaxDepth or whose aliases
// expand past MaxNodes is refused before it is decoded, with the position
// where it crosses the bound.
func Parse(data []byte, filename string) (*Scenario, error) {
	ps := &problems{file: filename}
	if !checkSize(ps, data) || !checkDepth(ps, data) {
		return nil, ps.err()
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		yamlProblem(ps, err, "invalid YAML")
		return nil, ps.err()
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc.Body == nil {
			continue
		}
		if body != nil {
			ps.add(posOf(doc.Body), "", "a scenario file holds one YAML document; found a second")
			return nil, ps.err()
		}
		body = doc.Body
	}
	if body == nil {
		ps.add(position{Line: 1, Column: 1}, "", "the file is empty; a scenario needs at least the key \"agents\"")
		return nil, ps.err()
	}
	if !checkExpansion(ps, body) {
		return nil, ps.err()
	}
	c := &checker{ps: ps, pos: positions{}, raw: map[string]string{}}
	c.walk(body, reflect.TypeFor[Scenario](), "", nil)
	if err := ps.err(); err != nil {
		// Keep what decodes leniently (the values at fault and unknown
		// keys dropped), so Check can report the semantic problems in the
		// same pass.
		if partial := decodeLeniently(data, ps.list); partial != nil {
			partial.file, partial.pos = filename, c.pos
			c.restoreDialects(partial)
			err.(*Error).partial = partial
		}
		return nil, err
	}
	s := &Scenario{}
	// The checker has vetted every key and type; strict decoding stays as a
	// second guard against anything it might have let through.
	if err := decodeStrict(data, s); err != nil {
		yamlProblem(ps, err, "")
		return nil, ps.err()
	}
	s.file, s.pos = filename, c.pos
	c.restoreDialects(s)
	return s, nil
}

// restoreDialects puts back the text of each card dialect as written: an
// unquoted 1.0 decodes as "1". The partial decode of a file with problems
// needs it too, or Check reports a valid dialect: 1.0 as unknown.
func (c *checker) restoreDialects(s *Scenario) {
	for i := range s.Agents {
		if cs := s.Agents[i].Card; cs != nil && cs.Dialect != "" {
			if raw, ok := c.raw[fmt.Sprintf("agents[%d].card.dialect", i)]; ok {
				cs.Dialect = raw
			}
		}
	}
}

// decodeStrict is go-yaml's strict decoding of a vetted file, with a panic
// of the decoder (it had one on a tag with no value, which the checker now
// reports first) turned into an error rather than a crash of validate or
// serve.
func decodeStrict(data []byte, s *Scenario) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML decoder failed on this file: %v", r)
		}
	}()
	return yaml.UnmarshalWithOptions(data, s, yaml.Strict())
}

// yamlProblem turns a go-yaml error into a positioned Problem.
func yamlProblem(ps *problems, err error, prefix string) {
	var ye yaml.Error
	if errors.As(err, &ye) {
		var pos position
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			pos = position{Line: tk.Position.Line, Column: tk.Position.Column}
		}
		msg := ye.GetMessage()
		if prefix != "" {
			msg = prefix + ": " + msg
		}
		ps.add(pos, "", "%s", msg)
		return
	}
	msg := err.Error()
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	ps.add(position{}, "", "%s", strings.TrimSpace(msg))
}

// File returns the file name the scenario was parsed with.
func (s *Scenario) File() string { return s.file }

// Address returns the listen address the file asks for, or "".
func (s *Scenario) Address() string { return s.Server.Address }

// String names the scenario's file and its number of agents, for logs.
func (s *Scenario) String() string {
	return fmt.Sprintf("scenario %s (%d agents)", s.file, len(s.Agents))
}

// Check reports every problem of the scenario file at path in one pass, as
// a2amock validate prints them: the structural ones Parse finds and the
// semantic ones Config finds (skill references, behavior names and
// parameters), the latter also when the file has structural problems, as
// long as it still decodes. registry nil means behaviors.Catalogue().
func Check(path string, registry *behaviors.Registry) error {
	data, err := readBounded(path)
	if err != nil {
		return &Error{Problems: []Problem{{File: path, Message: err.Error()}}}
	}
	return CheckData(data, path, registry)
}

// CheckData is Check of a file's text; filename is used in problem
// positions only.
func CheckData(data []byte, filename string, registry *behaviors.Registry) error {
	s, err := Parse(data, filename)
	if err == nil {
		_, err = s.Config(registry)
		return err
	}
	var se *Error
	if !errors.As(err, &se) || se.partial == nil {
		return err
	}
	// A semantic problem at or below a value already at fault is the same
	// problem again, or one of the value dropped to decode the rest.
	at := faulted(se.Problems)
	semantic := slices.DeleteFunc(semanticProblems(se.partial, registry), func(p Problem) bool { return lenient.Under(p.Path, at) })
	seen := map[string]bool{}
	all := &Error{}
	for _, p := range append(append([]Problem(nil), se.Problems...), semantic...) {
		if k := p.String(); !seen[k] {
			seen[k] = true
			all.Problems = append(all.Problems, p)
		}
	}
	sort.SliceStable(all.Problems, func(i, j int) bool {
		a, b := all.Problems[i], all.Problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return all
}

// semanticProblems runs Config on a leniently decoded file. A file with
// structural problems may hold what Config never expects; a panic there
// only costs the extra problems, never the structural ones.
func semanticProblems(s *Scenario, registry *behaviors.Registry) (out []Problem) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	_, err := s.Config(registry)
	var se *Error
	if errors.As(err, &se) {
		return se.Problems
	}
	return nil
}
