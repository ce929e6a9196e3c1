package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/readmeblock"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// buildA2ACLI builds the official a2a CLI (a2a-go v2's cmd/a2a, pinned by
// the tool directive in go.mod) into a temporary directory.
func buildA2ACLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "a2a")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/a2aproject/a2a-go/v2/cmd/a2a")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "building the a2a CLI: %s", out)
	return bin
}

// readmeCLIRepro returns the lines of the README's code block after the
// marker <!-- repro-a2a-cli: name -->.
func readmeCLIRepro(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	lines, err := readmeblock.Lines(string(raw), "<!-- repro-a2a-cli: "+name+" -->")
	require.NoError(t, err)
	return lines
}

// cliWords splits a README command line into words as sh does
// (readmeblock.Words), failing the test on syntax it would not run.
func cliWords(t *testing.T, line string) []string {
	t.Helper()
	words, err := readmeblock.Words(line)
	require.NoError(t, err)
	return words
}

// startServeDefault starts in process what `a2amock serve` serves with no
// flags but the given --behavior specs (the default scenario, seed 0), on a
// loopback port, so the README's ids are the ones it answers.
func startServeDefault(t *testing.T, specs ...string) *server.Server {
	t.Helper()
	cfg, err := scenario.Default().Config(behaviors.Catalogue())
	require.NoError(t, err)
	for _, spec := range specs {
		b, err := behaviors.Parse(spec)
		require.NoError(t, err)
		cfg.Agents[0].Behaviors = append(cfg.Agents[0].Behaviors, b)
	}
	return startMock(t, cfg)
}

// Issue 9, items 8 and 9: the README's reproduction of
// new-task-id-on-continuation with the official a2a CLI works as written,
// on a fresh default server: the continuation naming the first task gets a
// new task id, the original stays working, and the journal says the
// behavior acted. Run twice: as written (the CLI reads the card) and with
// --transport rest added to every line (the CLI posts to the base URL
// without reading the card, item 8), each answered over that binding.
func TestIssue9ReadmeReproWithA2ACLI(t *testing.T) {
	t.Parallel()
	bin := buildA2ACLI(t)
	lines := readmeCLIRepro(t, "new-task-id-on-continuation")
	serveArgs := cliWords(t, lines[0])
	require.Equal(t, []string{"a2amock", "serve"}, serveArgs[:2])
	var specs []string
	for i := 2; i < len(serveArgs); i += 2 {
		require.Equal(t, "--behavior", serveArgs[i], "serve flag this test does not emulate: %s", lines[0])
		specs = append(specs, serveArgs[i+1])
	}
	require.NotEmpty(t, specs)

	for _, mode := range []struct {
		name    string
		extra   []string
		binding wire.Binding
	}{
		{"card", nil, wire.BindingJSONRPC},
		{"transport-rest", []string{"--transport", "rest"}, wire.BindingREST},
	} {
		t.Run(mode.name, func(t *testing.T) {
			s := startServeDefault(t, specs...)
			var answers []string
			var answer string
			for _, line := range lines[1:] {
				if want, ok := strings.CutPrefix(line, "# → "); ok {
					rest := answer
					for _, frag := range strings.Split(want, "…") {
						i := strings.Index(rest, frag)
						if !assert.GreaterOrEqual(t, i, 0, "README line %q: %q not in the answer\n%s", line, frag, answer) {
							break
						}
						rest = rest[i+len(frag):]
					}
					continue
				}
				words := cliWords(t, line)
				require.Equal(t, "a2a", words[0], "unexpected README line %q", line)
				args := append([]string(nil), words[1:]...)
				for i, a := range args {
					if u, ok := strings.CutPrefix(a, "http://localhost:8080"); ok {
						args[i] = s.URL() + u
					}
				}
				args = append(args, mode.extra...)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
				cancel()
				require.NoError(t, err, "a2a %s: %s", strings.Join(args, " "), out)
				answer = string(out)
				answers = append(answers, answer)
			}
			require.Len(t, answers, 3)
			first, second, again := taskOf(answers[0]), taskOf(answers[1]), taskOf(answers[2])
			require.NotEmpty(t, first)
			assert.NotEqual(t, first, second, "the continuation must answer with a new task id")
			assert.Equal(t, first, again)
			assert.Contains(t, answers[2], "Status:   working", "the original task stays working")

			acted, requests := false, 0
			for _, e := range s.Journal().Entries() {
				if e.Kind == server.EntryRequest && e.Op != "" {
					assert.Equal(t, mode.binding, e.Binding, "request %d (%s %s)", e.Request, e.Op, e.Method)
					requests++
				}
				if e.Kind == server.EntryDecision && e.RefTaskID == first &&
					strings.Contains(e.Detail, "new-task-id-on-continuation") {
					acted = true
				}
			}
			assert.Equal(t, 3, requests, "two sends and a get")
			assert.True(t, acted, "the journal names the behavior on the continuation's decision")
		})
	}
}

// taskOf returns the id on the "Task:" line of the a2a CLI's text output.
func taskOf(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if id, ok := strings.CutPrefix(l, "Task:"); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}
