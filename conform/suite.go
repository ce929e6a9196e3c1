package conform

import (
	"cmp"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/a2amock/a2amock/scenario"
)

//go:embed suite/*.yaml
var defaultSuiteFS embed.FS

// DefaultSuiteName is the name of the embedded suite.
const DefaultSuiteName = "default"

// Defaults of a scenario's conform section.
const (
	DefaultPrompt   = "Hello"
	DefaultInput    = "account 42"
	DefaultDeadline = 5 * time.Second
	DefaultMaxPolls = 40
)

// Scenario is one conformance scenario: a scenario file with its conform
// section resolved (defaults applied, checks completed with BaseChecks).
type Scenario struct {
	ID, Title, Reproduces, Source, Robust string
	Prompt, Input, Mode                   string
	Deadline                              time.Duration
	Outcomes                              []string
	// Checks are every check that judges the scenario, BaseChecks first.
	Checks   []string
	MaxPolls int
	// Agents names the hosted agents in order.
	Agents []string
	// CardChange, when set, changes an agent's card mid-run.
	CardChange *CardChange
	// File is the parsed scenario file.
	File *scenario.Scenario
}

// Suite is an ordered list of scenarios.
type Suite struct {
	Name      string
	Scenarios []*Scenario
}

// Scenario returns the scenario with the given id.
func (s *Suite) Scenario(id string) (*Scenario, bool) {
	for _, sc := range s.Scenarios {
		if sc.ID == id {
			return sc, true
		}
	}
	return nil, false
}

// IDs lists the scenario ids in order.
func (s *Suite) IDs() []string {
	ids := make([]string, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		ids[i] = sc.ID
	}
	return ids
}

// DefaultSuite returns the embedded default suite.
func DefaultSuite() *Suite {
	s, err := loadFS(defaultSuiteFS, "suite", DefaultSuiteName)
	if err != nil {
		// The embedded suite is checked by the package's tests.
		panic("conform: the embedded default suite is invalid: " + err.Error())
	}
	return s
}

// LoadSuite returns the suite a --suite flag names: "default" (or "") for
// the embedded suite, a file holding one or more scenario documents
// separated by ---, or a directory of such files (*.yaml, *.yml, in name
// order). Every problem of every file is reported with file:line:col in a
// *scenario.Error.
func LoadSuite(name string) (*Suite, error) {
	if name == "" || name == DefaultSuiteName {
		return DefaultSuite(), nil
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, &scenario.Error{Problems: []scenario.Problem{{File: name, Message: "cannot read the suite: " + errText(err) + " (use --suite default for the built-in suite)"}}}
	}
	if st.IsDir() {
		return loadFS(os.DirFS(name), ".", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, &scenario.Error{Problems: []scenario.Problem{{File: name, Message: "cannot read the suite: " + errText(err)}}}
	}
	return ParseSuite(data, name)
}

func errText(err error) string {
	var pe *fs.PathError
	if ok := asPathError(err, &pe); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func asPathError(err error, target **fs.PathError) bool {
	pe, ok := err.(*fs.PathError)
	if ok {
		*target = pe
	}
	return ok
}

func loadFS(fsys fs.FS, dir, name string) (*Suite, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, &scenario.Error{Problems: []scenario.Problem{{File: name, Message: err.Error()}}}
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	suite := &Suite{Name: name}
	var problems []scenario.Problem
	for _, f := range files {
		data, err := fs.ReadFile(fsys, pathJoin(dir, f))
		if err != nil {
			problems = append(problems, scenario.Problem{File: f, Message: err.Error()})
			continue
		}
		display := filepath.Join(name, f)
		if name == DefaultSuiteName {
			display = "conform/suite/" + f
		}
		part, err := parseDocs(data, display)
		problems = append(problems, problemsOf(err)...)
		suite.Scenarios = append(suite.Scenarios, part...)
	}
	problems = append(problems, checkUnique(suite.Scenarios)...)
	if len(suite.Scenarios) == 0 && len(problems) == 0 {
		problems = append(problems, scenario.Problem{File: name, Message: "the suite holds no scenario (*.yaml files with a conform section)"})
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return suite, nil
}

func pathJoin(dir, f string) string {
	if dir == "." || dir == "" {
		return f
	}
	return dir + "/" + f
}

// ParseSuite parses a suite file: one or more scenario documents separated
// by --- lines, each with a conform section.
func ParseSuite(data []byte, filename string) (*Suite, error) {
	scs, err := parseDocs(data, filename)
	problems := append(problemsOf(err), checkUnique(scs)...)
	if len(scs) == 0 && len(problems) == 0 {
		problems = append(problems, scenario.Problem{File: filename, Line: 1, Column: 1, Message: "the suite holds no scenario"})
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return &Suite{Name: filename, Scenarios: scs}, nil
}

func problemsOf(err error) []scenario.Problem {
	if err == nil {
		return nil
	}
	if se, ok := err.(*scenario.Error); ok {
		return se.Problems
	}
	return []scenario.Problem{{Message: err.Error()}}
}

func checkUnique(scs []*Scenario) []scenario.Problem {
	var out []scenario.Problem
	seen := map[string]*Scenario{}
	for _, sc := range scs {
		if prev, dup := seen[sc.ID]; dup {
			line, col := sc.File.Position("conform.id")
			pl, _ := prev.File.Position("conform.id")
			out = append(out, scenario.Problem{File: sc.File.File(), Line: line, Column: col, Path: "conform.id",
				Message: fmt.Sprintf("scenario id %q is already used in %s:%d", sc.ID, prev.File.File(), pl)})
		}
		seen[sc.ID] = sc
	}
	return out
}

var docMarker = regexp.MustCompile(`^---\s*(#.*)?$`)

// parseDocs splits a file into YAML documents at --- lines and parses each
// as a scenario, keeping line numbers true to the file.
func parseDocs(data []byte, filename string) ([]*Scenario, error) {
	lines := strings.SplitAfter(string(data), "\n")
	var (
		out      []*Scenario
		problems []scenario.Problem
		start    int
	)
	flush := func(end int) {
		body := strings.Join(lines[start:end], "")
		if strings.TrimSpace(stripComments(body)) == "" {
			return
		}
		// Blank lines in front keep the positions the parser reports.
		text := strings.Repeat("\n", start) + body
		sc, err := parseScenario([]byte(text), filename)
		problems = append(problems, problemsOf(err)...)
		if sc != nil {
			out = append(out, sc)
		}
	}
	for i, l := range lines {
		if docMarker.MatchString(strings.TrimRight(l, "\r\n")) {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	if len(problems) > 0 {
		return out, &scenario.Error{Problems: problems}
	}
	return out, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func parseScenario(data []byte, filename string) (*Scenario, error) {
	f, err := scenario.Parse(data, filename)
	if err != nil {
		// Every problem at once, as a2amock validate says them: the
		// behaviors' too, not only the structural ones.
		if all := scenario.CheckData(data, filename, nil); all != nil {
			err = all
		}
		return nil, err
	}
	var problems []scenario.Problem
	at := func(path, format string, args ...any) {
		line, col := f.Position(path)
		problems = append(problems, scenario.Problem{File: filename, Line: line, Column: col, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	cs := f.Conform
	if cs == nil {
		line, col := f.Position("agents")
		return nil, &scenario.Error{Problems: []scenario.Problem{{File: filename, Line: line, Column: col,
			Message: "a suite scenario needs a conform section (id, prompt, outcomes, checks; see docs/conformance.md)"}}}
	}
	if _, err := f.Config(nil); err != nil {
		problems = append(problems, problemsOf(err)...)
	}
	if !idPattern.MatchString(cs.ID) {
		at("conform.id", "%q is not a scenario id: use lower-case letters and digits in words joined by -", cs.ID)
	}
	sc := &Scenario{ID: cs.ID, Title: cs.Title, Reproduces: cs.Reproduces, Source: cs.Source, Robust: cs.Robust,
		Prompt: cmp.Or(cs.Prompt, DefaultPrompt), Input: cmp.Or(cs.Input, DefaultInput), Mode: cs.Mode,
		Deadline: DefaultDeadline, Outcomes: slices.Clone(cs.Outcomes), MaxPolls: cs.MaxPolls, File: f}
	if cs.Deadline != "" {
		d, err := time.ParseDuration(string(cs.Deadline))
		if err == nil && d <= 0 {
			at("conform.deadline", "the deadline must be positive")
		}
		sc.Deadline = d
	}
	if len(sc.Outcomes) == 0 {
		sc.Outcomes = []string{"completed"}
	}
	if sc.MaxPolls <= 0 {
		sc.MaxPolls = DefaultMaxPolls
	}
	sc.Checks = slices.Clone(BaseChecks)
	for i, id := range cs.Checks {
		if _, ok := CheckByID(id); !ok {
			at(fmt.Sprintf("conform.checks[%d]", i), "unknown check %q; valid checks: %s", id, strings.Join(CheckIDs(), ", "))
			continue
		}
		if !slices.Contains(sc.Checks, id) {
			sc.Checks = append(sc.Checks, id)
		}
	}
	for _, a := range f.Agents {
		sc.Agents = append(sc.Agents, a.Name)
	}
	sc.CardChange = cardChangeOf(cs.CardChange, sc.Agents, at)
	if sc.CardChange == nil && slices.Contains(sc.Checks, "card-refetched-on-change") {
		at("conform.checks", "check card-refetched-on-change needs a card that changes: give conform.cardChange")
	}
	if len(problems) > 0 {
		return nil, &scenario.Error{Problems: problems}
	}
	return sc, nil
}
