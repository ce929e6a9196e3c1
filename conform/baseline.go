package conform

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/a2amock/a2amock/conform/internal/report"
	"github.com/a2amock/a2amock/internal/yamlnode"
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
//
// A baseline can be read from several files, as layers (LoadBaselines): a
// client graded over two bindings keeps what fails on both in one file and
// what fails on one binding only in another, and each entry is listed once.
type Baseline struct {
	// File is the file the baseline was read from; of layers, the last:
	// the one --update-baseline rewrites.
	File string
	// Files are every file read, in order (File alone for one).
	Files   []string
	Entries map[string]map[string]string
	// from is the file that lists each entry; at its position.
	from map[string]map[string]entryPlace
}

// entryPlace is where a baseline entry is written.
type entryPlace struct {
	file      string
	line, col int
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

// LoadBaselines reads expected-failures files as the layers of one
// baseline: the entries of all of them, each in one file only (an entry a
// second file lists again is a problem at its file:line:col, so that the
// layers never disagree on a reason). File is the last path.
func LoadBaselines(paths []string, suite *Suite) (*Baseline, error) {
	if len(paths) == 0 {
		return nil, errors.New("conform: no baseline file")
	}
	out := &Baseline{Entries: map[string]map[string]string{}, from: map[string]map[string]entryPlace{}}
	var problems []scenario.Problem
	for _, path := range paths {
		b, err := LoadBaseline(path, suite)
		if err != nil {
			var se *scenario.Error
			if errors.As(err, &se) {
				problems = append(problems, se.Problems...)
				continue
			}
			return nil, err
		}
		out.File = path
		out.Files = append(out.Files, path)
		for _, sid := range slices.Sorted(maps.Keys(b.Entries)) {
			for _, cid := range slices.Sorted(maps.Keys(b.Entries[sid])) {
				at := b.from[sid][cid]
				if first, dup := out.from[sid][cid]; dup {
					problems = append(problems, scenario.Problem{File: path, Line: at.line, Column: at.col,
						Message: fmt.Sprintf("%s/%s is listed in %s already (line %d): list each expected failure in one file", sid, cid, first.file, first.line)})
					continue
				}
				out.add(sid, cid, b.Entries[sid][cid], at)
			}
		}
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return out, nil
}

// add lists the failure sid/cid with its reason, written at place.
func (b *Baseline) add(sid, cid, reason string, place entryPlace) {
	if b.Entries[sid] == nil {
		b.Entries[sid] = map[string]string{}
		b.from[sid] = map[string]entryPlace{}
	}
	b.Entries[sid][cid] = reason
	b.from[sid][cid] = place
}

// fileOf is the file that lists sid/cid ("" when none does).
func (b *Baseline) fileOf(sid, cid string) string {
	if p, ok := b.from[sid][cid]; ok {
		return p.file
	}
	if _, ok := b.Entries[sid][cid]; ok {
		return b.File
	}
	return ""
}

// ParseBaseline parses an expected-failures file (see Baseline).
func ParseBaseline(data []byte, filename string, suite *Suite) (*Baseline, error) {
	b := &Baseline{File: filename, Files: []string{filename}, Entries: map[string]map[string]string{}, from: map[string]map[string]entryPlace{}}
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
		top, ok := yamlnode.MappingValues(doc.Body)
		if !ok {
			add(doc.Body, "expected a mapping of scenario ids to {check id: reason}")
			continue
		}
		for _, sv := range top {
			sid := yamlnode.ScalarText(sv.Key)
			sc, known := suite.Scenario(sid)
			if !known {
				add(sv.Key, "unknown scenario %q; the suite %s has: %s", sid, suite.Name, strings.Join(suite.IDs(), ", "))
				continue
			}
			checks, ok := yamlnode.MappingValues(sv.Value)
			if !ok {
				add(sv.Value, "scenario %s: expected a mapping of check ids to reasons", sid)
				continue
			}
			for _, cv := range checks {
				cid := yamlnode.ScalarText(cv.Key)
				if !slices.Contains(sc.Checks, cid) {
					add(cv.Key, "scenario %s has no check %q; its checks: %s", sid, cid, strings.Join(sc.Checks, ", "))
					continue
				}
				reason, ok := cv.Value.(*ast.StringNode)
				if !ok || strings.TrimSpace(reason.Value) == "" {
					add(cv.Value, "%s/%s: give the reason the failure is accepted, as a string", sid, cid)
					continue
				}
				place := entryPlace{file: filename}
				if tk := cv.Key.GetToken(); tk != nil && tk.Position != nil {
					place.line, place.col = tk.Position.Line, tk.Position.Column
				}
				b.add(sid, cid, reason.Value, place)
			}
		}
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return b, nil
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
	files := b.Files
	if len(files) == 0 {
		files = []string{b.File}
	}
	out := &BaselineResult{File: strings.Join(files, ", "), Files: files, Expected: []BaselineEntry{}, Unexpected: []BaselineEntry{}, Stale: []BaselineEntry{}}
	for _, res := range rep.Scenarios {
		for _, c := range res.Checks {
			reason, listed := b.Entries[res.ID][c.ID]
			switch {
			case !c.Pass && listed:
				out.Expected = append(out.Expected, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: reason, File: b.fileOf(res.ID, c.ID)})
			case !c.Pass:
				out.Unexpected = append(out.Unexpected, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: report.OneLine(c.Reason)})
			case listed:
				out.Stale = append(out.Stale, BaselineEntry{Scenario: res.ID, Check: c.ID, Reason: reason, File: b.fileOf(res.ID, c.ID)})
			}
		}
	}
	return out
}

// WriteBaseline writes the report's failures as an expected-failures file,
// keeping the reasons of entries the old baseline (may be nil) gave. Of a
// baseline read as layers, path is one layer: the failures another layer
// lists are left to it. The entries path lists for scenarios the run did
// not include (--scenario) are kept as they were: the run judged none of
// them.
func WriteBaseline(path string, rep *Report, old *Baseline) error {
	return os.WriteFile(path, baselineYAML(rep, old, path), 0o644)
}

// BaselineYAML renders the report's failures as an expected-failures file:
// the file old.File, when old was read as layers (the failures the other
// layers list are left out).
func BaselineYAML(rep *Report, old *Baseline) []byte {
	path := ""
	if old != nil {
		path = old.File
	}
	return baselineYAML(rep, old, path)
}

func baselineYAML(rep *Report, old *Baseline, path string) []byte {
	var buf bytes.Buffer
	buf.WriteString("# Expected failures for a2amock conform (--expected-failures).\n")
	buf.WriteString("# scenario id → check id → why the failure is accepted for now. A run fails on a\n")
	buf.WriteString("# failure not listed here and on an entry that passes again (remove it).\n")
	if old == nil {
		old = &Baseline{}
	}
	ids := make([]string, 0, len(rep.Scenarios))
	failed := map[string][]*CheckResult{}
	for _, res := range rep.Scenarios {
		for _, c := range res.Failed() {
			if f := old.fileOf(res.ID, c.ID); f != "" && f != path {
				continue // another layer lists it
			}
			failed[res.ID] = append(failed[res.ID], c)
		}
		if len(failed[res.ID]) > 0 {
			ids = append(ids, res.ID)
		}
	}
	// What path lists for scenarios the run did not include stays.
	for sid, checks := range old.Entries {
		if slices.ContainsFunc(rep.Scenarios, func(res *ScenarioResult) bool { return res.ID == sid }) {
			continue
		}
		for cid := range checks {
			if old.fileOf(sid, cid) == path {
				failed[sid] = append(failed[sid], &CheckResult{ID: cid})
			}
		}
		slices.SortFunc(failed[sid], func(a, b *CheckResult) int { return old.from[sid][a.ID].line - old.from[sid][b.ID].line })
		if len(failed[sid]) > 0 {
			ids = append(ids, sid)
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		buf.WriteString("{}\n")
	}
	for _, id := range ids {
		fmt.Fprintf(&buf, "%s:\n", id)
		for _, c := range failed[id] {
			reason := report.OneLine(c.Reason)
			if r, ok := old.Entries[id][c.ID]; ok {
				reason = r
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
