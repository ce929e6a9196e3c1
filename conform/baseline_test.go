package conform

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/scenario"
)

// TestLayeredBaseline: baseline files read as layers list each failure in
// one of them; the report names the file of each expected and stale entry,
// an entry listed twice is refused where the second file lists it, and
// rewriting the last layer leaves out what the others list.
func TestLayeredBaseline(t *testing.T) {
	suite := DefaultSuite()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// detRun fails fail-instead-of-input-required/truthful-outcome only.
	shared := write("shared.yaml", "fail-instead-of-input-required:\n  truthful-outcome: fails on every binding\n")
	extra := write("extra.yaml", "honest-v10-jsonrpc:\n  no-crash: fails over one binding only\n")
	b, err := LoadBaselines([]string{shared, extra}, suite)
	if err != nil {
		t.Fatal(err)
	}
	if b.File != extra || len(b.Files) != 2 {
		t.Fatalf("File %q, Files %q", b.File, b.Files)
	}
	rep := detRun(t, b)
	if rep.Summary.Unexpected != 0 || rep.Summary.Stale != 1 || rep.Summary.OK {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if e := rep.Baseline.Expected; len(e) != 1 || e[0].File != shared || e[0].Reason != "fails on every binding" {
		t.Errorf("expected entries %+v, want the one in %s", e, shared)
	}
	if s := rep.Baseline.Stale; len(s) != 1 || s[0].File != extra || s[0].Check != "no-crash" {
		t.Errorf("stale entries %+v, want the one in %s", s, extra)
	}
	if rep.Baseline.File != shared+", "+extra || len(rep.Baseline.Files) != 2 {
		t.Errorf("report names %q %q", rep.Baseline.File, rep.Baseline.Files)
	}
	var sum bytes.Buffer
	WriteSummary(&sum, rep)
	if !strings.Contains(sum.String(), "honest-v10-jsonrpc/no-crash passes now; remove it from "+extra+"\n") {
		t.Errorf("the summary does not say which file to edit:\n%s", sum.String())
	}

	// Listed in two layers: refused at the second, which names the first.
	dup := write("dup.yaml", "# again\nfail-instead-of-input-required:\n  truthful-outcome: again\n")
	_, err = LoadBaselines([]string{shared, dup}, suite)
	var se *scenario.Error
	if !errors.As(err, &se) || len(se.Problems) != 1 || !strings.Contains(err.Error(), dup+":3:3: fail-instead-of-input-required/truthful-outcome is listed in "+shared+" already (line 2)") {
		t.Errorf("duplicate entry: %v", err)
	}
	// Every layer's problems at once.
	bad := write("bad.yaml", "no-such-scenario:\n  no-crash: x\n")
	if _, err := LoadBaselines([]string{bad, dup, filepath.Join(dir, "none.yaml")}, suite); err == nil ||
		!strings.Contains(err.Error(), "bad.yaml:1:1") || !strings.Contains(err.Error(), "cannot read the baseline") {
		t.Errorf("problems of several layers: %v", err)
	}

	// Rewriting the last layer: the failure the first lists stays there.
	if err := WriteBaseline(extra, rep, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(extra); !strings.HasSuffix(string(got), "\n{}\n") {
		t.Errorf("the rewritten layer lists what another does:\n%s", got)
	}
	// ... and a failure it lists keeps its reason.
	empty := write("empty.yaml", "# nothing fails on every binding\n")
	own := write("own.yaml", "fail-instead-of-input-required:\n  truthful-outcome: our own reason\n")
	b, err = LoadBaselines([]string{empty, own}, suite)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteBaseline(own, detRun(t, b), b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(own); !strings.Contains(string(got), "  truthful-outcome: our own reason\n") {
		t.Errorf("the rewritten layer lost its reason:\n%s", got)
	}
	if _, err := LoadBaselines(nil, suite); err == nil {
		t.Error("no file: no error")
	}
}

// TestRewriteKeepsScenariosNotRun: rewriting a baseline after a run of some
// scenarios only (--scenario) keeps, as they were, the entries of the
// scenarios the run did not include; those of the scenarios it ran are the
// run's failures.
func TestRewriteKeepsScenariosNotRun(t *testing.T) {
	suite := DefaultSuite()
	path := filepath.Join(t.TempDir(), "expected.yaml")
	text := "never-terminal:\n  no-orphans: no cancel yet\n  exits-in-time: no deadline yet\n" +
		"honest-v10-jsonrpc:\n  no-crash: it crashed\n  truthful-outcome: it lied\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := LoadBaselines([]string{path}, suite)
	if err != nil {
		t.Fatal(err)
	}
	// A run of honest-v10-jsonrpc alone, which now fails no-crash only.
	rep := &Report{Scenarios: []*ScenarioResult{{ID: "honest-v10-jsonrpc", Checks: []*CheckResult{
		{ID: "no-crash", Reason: "crash"}, {ID: "truthful-outcome", Pass: true}}}}}
	if err := WriteBaseline(path, rep, old); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "honest-v10-jsonrpc:\n  no-crash: it crashed\nnever-terminal:\n  no-orphans: no cancel yet\n  exits-in-time: no deadline yet\n"
	if !strings.HasSuffix(string(got), "\n"+want) {
		t.Errorf("rewritten baseline:\n%s\nwant it to end with:\n%s", got, want)
	}
	if _, err := LoadBaseline(path, suite); err != nil {
		t.Errorf("the rewritten baseline does not load: %v", err)
	}
}
