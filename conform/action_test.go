package conform

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// action is the part of action.yml the runner reads.
type action struct {
	Inputs map[string]struct {
		Default  string `yaml:"default"`
		Required bool   `yaml:"required"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name             string            `yaml:"name"`
			Shell            string            `yaml:"shell"`
			Env              map[string]string `yaml:"env"`
			WorkingDirectory string            `yaml:"working-directory"`
			Run              string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var inputExpr = regexp.MustCompile(`\$\{\{\s*(inputs\.[a-z-]+|github\.action_ref)\s*\}\}`)

// loadAction reads action.yml from repo.
func loadAction(t *testing.T, repo string) *action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	return &a
}

// expand substitutes the expressions of s as a runner does: inputs given
// or their defaults, and github.action_ref from inputs["github.action_ref"]
// (empty when not given, as when the action is used from a path).
func (a *action) expand(t *testing.T, s string, inputs map[string]string) string {
	t.Helper()
	return inputExpr.ReplaceAllStringFunc(s, func(m string) string {
		expr := inputExpr.FindStringSubmatch(m)[1]
		if expr == "github.action_ref" {
			return inputs[expr]
		}
		name := strings.TrimPrefix(expr, "inputs.")
		in, ok := a.Inputs[name]
		if !ok {
			t.Fatalf("action.yml uses undeclared input %q", name)
		}
		if v, given := inputs[name]; given {
			return v
		}
		if in.Required {
			t.Fatalf("required input %q not given", name)
		}
		return in.Default
	})
}

// runAction runs the composite action's shell steps as a GitHub runner
// does: inputs substituted into env and working-directory, each script run
// by bash -eo pipefail, $GITHUB_PATH applied between steps. It returns the
// exit status of the last step run, the job summary and the step outputs.
func runAction(t *testing.T, repo string, inputs map[string]string) (int, string, string) {
	t.Helper()
	a := loadAction(t, repo)
	val := func(s string) string { return a.expand(t, s, inputs) }
	tmp := t.TempDir()
	files := map[string]string{}
	for _, k := range []string{"GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		files[k] = filepath.Join(tmp, strings.ToLower(k))
		if err := os.WriteFile(files[k], nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gobin := filepath.Join(tmp, "gobin")
	path := os.Getenv("PATH")
	status := 0
	for _, st := range a.Runs.Steps {
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash", st.Name, st.Shell)
		}
		if strings.Contains(st.Run, "${{") {
			t.Fatalf("step %q: expressions inside run scripts are not tested here; pass them through env", st.Name)
		}
		script := filepath.Join(tmp, "step.sh")
		if err := os.WriteFile(script, []byte(st.Run), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = filepath.Join(repo, val(st.WorkingDirectory))
		cmd.Env = append(os.Environ(), "PATH="+path, "GOBIN="+gobin, "RUNNER_TEMP="+tmp)
		for k, f := range files {
			cmd.Env = append(cmd.Env, k+"="+f)
		}
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+val(v))
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %q:\n%s", st.Name, out)
		status = cmd.ProcessState.ExitCode()
		if err != nil {
			break
		}
		added, _ := os.ReadFile(files["GITHUB_PATH"])
		for _, p := range strings.Fields(string(added)) {
			path = p + string(os.PathListSeparator) + path
		}
	}
	summary, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	outputs, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	return status, string(summary), string(outputs)
}

// TestGitHubAction runs action.yml's shell steps locally against the robust
// reference client: a passing run, then one whose baseline has a stale
// entry (the job fails, the summary is still written).
func TestGitHubAction(t *testing.T) {
	if testing.Short() {
		t.Skip("installs a2amock and runs the reference client")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	client := buildRobust(t)
	inputs := map[string]string{"version": "local", "client": client,
		"args": "--scenario honest-v10-jsonrpc --scenario never-terminal --parallel 2"}
	status, summary, outputs := runAction(t, repo, inputs)
	if status != 0 {
		t.Fatalf("the action failed (exit %d) on a passing client", status)
	}
	if !strings.Contains(summary, "## a2amock conform: ✅ passed") || !strings.Contains(summary, "| never-terminal |") {
		t.Errorf("job summary:\n%s", summary)
	}
	for _, k := range []string{"report-json=", "junit=", "markdown="} {
		if !strings.Contains(outputs, k) {
			t.Errorf("output %s missing: %s", k, outputs)
		}
	}
	m := regexp.MustCompile(`report-json=(\S+)`).FindStringSubmatch(outputs)
	if m == nil {
		t.Fatal("no report-json output")
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("the JSON report is not there: %v", err)
	}

	baseline := filepath.Join(t.TempDir(), "expected.yaml")
	if err := os.WriteFile(baseline, []byte("never-terminal:\n  bounded-polling: once polled for ever\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs["expected-failures"] = baseline
	status, summary, _ = runAction(t, repo, inputs)
	if status != 1 {
		t.Errorf("exit %d with a stale baseline entry, want 1", status)
	}
	if !strings.Contains(summary, "❌ failed") || !strings.Contains(summary, "Stale baseline entries") {
		t.Errorf("job summary of the failing run:\n%s", summary)
	}

	// Several files, one per line, are layers: the stale entry is named
	// with the second.
	first := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(first, []byte("# nothing fails on every binding\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs["expected-failures"] = first + "\n  " + baseline + "\n"
	status, summary, _ = runAction(t, repo, inputs)
	if status != 1 || !strings.Contains(summary, "**never-terminal** `bounded-polling` ("+baseline+")") {
		t.Errorf("exit %d, job summary with two baseline files:\n%s", status, summary)
	}
}

// TestGitHubActionInstallsItsOwnVersion: with no version input, the
// install step installs the ref the action is used at, so a job pinned to
// a tag of the action does not get whatever was released since; latest
// only when the action has no ref. (go is replaced by a script that
// records what it was asked to install.)
func TestGitHubActionInstallsItsOwnVersion(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	a := loadAction(t, repo)
	install := a.Runs.Steps[0]
	if install.Name != "Install a2amock" {
		t.Fatalf("the first step is %q", install.Name)
	}
	for _, c := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"client": "c", "github.action_ref": "v1.2.3"}, "install github.com/a2amock/a2amock/cmd/a2amock@v1.2.3"},
		{map[string]string{"client": "c", "github.action_ref": "v1"}, "install github.com/a2amock/a2amock/cmd/a2amock@v1"},
		{map[string]string{"client": "c"}, "install github.com/a2amock/a2amock/cmd/a2amock@latest"},
		{map[string]string{"client": "c", "github.action_ref": "v1.2.3", "version": "v0.9.0"}, "install github.com/a2amock/a2amock/cmd/a2amock@v0.9.0"},
		{map[string]string{"client": "c", "github.action_ref": "v1.2.3", "version": "local"}, "install ./cmd/a2amock"},
	} {
		tmp := t.TempDir()
		log := filepath.Join(tmp, "go.log")
		fake := "#!/bin/sh\nif [ \"$1\" = install ]; then echo \"$*\" >> " + log + "; fi\nif [ \"$1\" = env ]; then echo " + tmp + "; fi\n"
		if err := os.WriteFile(filepath.Join(tmp, "go"), []byte(fake), 0o700); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(tmp, "install.sh")
		if err := os.WriteFile(script, []byte(install.Run), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Env = []string{"PATH=" + tmp + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_PATH=" + filepath.Join(tmp, "github_path")}
		for k, v := range install.Env {
			cmd.Env = append(cmd.Env, k+"="+a.expand(t, v, c.inputs))
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c.inputs, err, out)
		}
		got, _ := os.ReadFile(log)
		if strings.TrimSpace(string(got)) != c.want {
			t.Errorf("%v: go %q, want %q", c.inputs, strings.TrimSpace(string(got)), c.want)
		}
	}
}
