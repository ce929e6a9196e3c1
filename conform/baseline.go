package conform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/a2amock/a2amock/conform/internal/report"
	"github.com/a2amock/a2amock/scenario"
)

// Baseline is an expected-failures file: scenario id → check id → the
// reason the failure is accepted for now.
//
//	never-terminal:
//	  exits-in-time: the client has no deadline yet (#123)
//
// A run fails on a failure the baseline does not list and on an entry that
// now passes (a stale entry must be removed).
type Baseline struct {
	File    string
	Entries map[string]map[string]string
}

// LoadBaseline reads an expected-failures file and checks it against the
// suite: every scenario and check it names must exist there. Problems are
// reported with file:line:col in a *scenario.Error.
func LoadBaseline(path string, suite *Suite) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &scenario.Error{Problems: []scenario.Problem{{File: path, Message: "cannot read the baseline: " + errText(err)}}}
	}
	return ParseBaseline(data, path, suite)
}

// ParseBaseline parses an expected-failures file (see Baseline).
func ParseBaseline(data []byte, filename string, suite *Suite) (*Baseline, error) {
	b := &Baseline{File: filename, Entries: map[string]map[string]string{}}
	var problems []scenario.Problem
	add := func(n ast.Node, format string, args ...any) {
		p := scenario.Problem{File: filename, Message: fmt.Sprintf(format, args...)}
		if n != nil {
			if tk := n.GetToken(); tk != nil && tk.Position != nil {
				p.Line, p.Column = tk.Position.Line, tk.Position.Column
			}
		}
		problems = append(problems, p)
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		p := scenario.Problem{File: filename, Message: "invalid YAML: " + err.Error()}
		var ye yaml.Error
		if errors.As(err, &ye) {
			p.Message = "invalid YAML: " + ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				p.Line, p.Column = tk.Position.Line, tk.Position.Column
			}
		}
		return nil, &scenario.Error{Problems: []scenario.Problem{p}}
	}
	for _, doc := range f.Docs {
		if doc.Body == nil {
			continue
		}
		if _, null := doc.Body.(*ast.NullNode); null {
			continue
		}
		top, ok := mapping(doc.Body)
		if !ok {
			add(doc.Body, "expected a mapping of scenario ids to {check id: reason}")
			continue
		}
		for _, sv := range top {
			sid := keyText(sv.Key)
			sc, known := suite.Scenario(sid)
			if !known {
				add(sv.Key, "unknown scenario %q; the suite %s has: %s", sid, suite.Name, strings.Join(suite.IDs(), ", "))
				continue
			}
			checks, ok := mapping(sv.Value)
			if !ok {
				add(sv.Value, "scenario %s: expected a mapping of check ids to reasons", sid)
				continue
			}
			for _, cv := range checks {
				cid := keyText(cv.Key)
				if !slices.Contains(sc.Checks, cid) {
					add(cv.Key, "scenario %s has no check %q; its checks: %s", sid, cid, strings.Join(sc.Checks, ", "))
					continue
				}
				reason, ok := cv.Value.(*ast.StringNode)
				if !ok || strings.TrimSpace(reason.Value) == "" {
					add(cv.Value, "%s/%s: give the reason the failure is accepted, as a string", sid, cid)
					continue
				}
				if b.Entries[sid] == nil {
					b.Entries[sid] = map[string]string{}
				}
				b.Entries[sid][cid] = reason.Value
			}
		}
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return b, nil
}

func mapping(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

func keyText(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// mark flags the scenario's failed checks the baseline expects.
func (b *Baseline) mark(res *ScenarioResult) {
	for _, c := range res.Checks {
		if reason, ok := b.Entries[res.ID][c.ID]; ok && !c.Pass {
			c.Expected, c.BaselineReason = true, reason
		}
	}
}

// compare lists expected, unexpected and stale entries for the scenarios
// run.
func (b *Baseline) compare(rep *Report) *BaselineResult {
	out := &BaselineResult{File: b.File, Expected: []BaselineEntry{}, Unexpected: []BaselineEntry{}, Stale: []BaselineEntry{}}
	for _, res := range rep.Scenarios {
		for _, c := range res.Checks {
			reason, listed := b.Entries[res.ID][c.ID]
			switch {
			case !c.Pass && listed:
				out.Expected = append(out.Expected, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: reason})
			case !c.Pass:
				out.Unexpected = append(out.Unexpected, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: report.OneLine(c.Reason)})
			case listed:
				out.Stale = append(out.Stale, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: reason})
			}
		}
	}
	return out
}

// WriteBaseline writes the report's failures as an expected-failures file,
// keeping the reasons of entries the old baseline (may be nil) gave.
func WriteBaseline(path string, rep *Report, old *Baseline) error {
	return os.WriteFile(path, BaselineYAML(rep, old), 0o644)
}

// BaselineYAML renders the report's failures as an expected-failures file.
func BaselineYAML(rep *Report, old *Baseline) []byte {
	var buf bytes.Buffer
	buf.WriteString("# Expected failures for a2amock conform (--expected-failures).\n")
	buf.WriteString("# scenario id → check id → why the failure is accepted for now. A run fails on a\n")
	buf.WriteString("# failure not listed here and on an entry that passes again (remove it).\n")
	ids := make([]string, 0, len(rep.Scenarios))
	byID := map[string]*ScenarioResult{}
	for _, res := range rep.Scenarios {
		if len(res.Failed()) > 0 {
			ids = append(ids, res.ID)
			byID[res.ID] = res
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		buf.WriteString("{}\n")
	}
	for _, id := range ids {
		fmt.Fprintf(&buf, "%s:\n", id)
		for _, c := range byID[id].Failed() {
			reason := report.OneLine(c.Reason)
			if old != nil {
				if r, ok := old.Entries[id][c.ID]; ok {
					reason = r
				}
			}
			q, _ := yaml.Marshal(reason)
			fmt.Fprintf(&buf, "  %s: %s", c.ID, q)
			if !bytes.HasSuffix(q, []byte("\n")) {
				buf.WriteString("\n")
			}
		}
	}
	return buf.Bytes()
}
