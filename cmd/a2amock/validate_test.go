package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateOK(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/incidents/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"validate"}, files...), &out, &errb)
	// push-notification-once.yaml needs the push-once behavior; when it is
	// not registered the file is reported, not skipped.
	if code != 0 {
		assert.Contains(t, errb.String(), `unknown behavior "push-once"`)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), errb.String())
		return
	}
	assert.Empty(t, errb.String())
	assert.Equal(t, len(files), strings.Count(out.String(), ": ok\n"), out.String())
}

func TestValidateReportsEveryProblemWithPosition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`agents:
  - name: a
    behaviours: [skip-working]
    timelines:
      - steps:
          - state: done
            after: soon
`), 0o600))
	unknown := filepath.Join(dir, "unknown.yaml")
	require.NoError(t, os.WriteFile(unknown, []byte("agents:\n  - name: a\n    behaviors: [no-such-thing]\n"), 0o600))
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"validate", bad, unknown}, &out, &errb)
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String())
	got := errb.String()
	assert.Contains(t, got, bad+`:3:5: agents[0]: unknown key "behaviours"; valid keys: name, card, behaviors, enforceAuth, bindings, timelines`)
	assert.Contains(t, got, bad+`:6:20: agents[0].timelines[0].steps[0].state: "done" is not valid; valid values: submitted, working,`)
	assert.Contains(t, got, bad+`:7:20: agents[0].timelines[0].steps[0].after: "soon" is not a duration`)
	assert.Contains(t, got, unknown+`:3:17: agents[0].behaviors[0]: unknown behavior "no-such-thing"; valid behaviors: `)
	assert.Contains(t, got, "skip-working")
}

// A value of the wrong type in one place does not hide the problems that
// need the behavior catalogue elsewhere, and a value at fault is reported
// once, not again by the check that runs on what decodes.
func TestValidateSemanticProblemsBesideStructuralOnes(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`agents:
  - name: x
    behaviors: ["latency:delay=abc"]
  - name: y
    timelines: {foo: [{state: blah}]}
  - name: z
    card: {dialect: "9.9"}
`), 0o600))
	var out, errb bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"validate", bad}, &out, &errb))
	assert.Equal(t, bad+`:3:17: agents[0].behaviors[0]: behavior "latency": parameter delay: "abc" is not a duration (e.g. 250ms, 2s)
`+bad+`:5:17: agents[1].timelines: expected a list, found a mapping
`+bad+`:7:21: agents[2].card.dialect: "9.9" is not valid; valid values: 1.0, 0.3, 0.2, 0.1
`, errb.String())

	// A missing name is said once, and the agent's behaviors still checked.
	require.NoError(t, os.WriteFile(bad, []byte("agents:\n  - card: {}\n    behaviors: [nope]\n"), 0o600))
	errb.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"validate", bad}, &out, &errb))
	got := errb.String()
	assert.Equal(t, 2, strings.Count(got, "\n"), got)
	assert.Contains(t, got, bad+`:2:5: agents[0]: missing key "name"`)
	assert.Contains(t, got, bad+`:3:17: agents[0].behaviors[0]: unknown behavior "nope"`)
}

func TestValidateUsage(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"validate"}, &out, &errb))
	assert.Contains(t, errb.String(), "usage")
}

func TestServeScenario(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"default scenario", nil, `"name":"agent"`},
		{"scenario file", []string{"--scenario", "../../examples/incidents/task-minted-for-unknown-id.yaml"}, `"name":"forgetful"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			ready := make(chan string, 1)
			done := make(chan int, 1)
			var out, errb bytes.Buffer
			go func() {
				done <- serve(ctx, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, tc.args...), &out, &errb, ready)
			}()
			var url string
			select {
			case url = <-ready:
			case code := <-done:
				cancel()
				t.Fatalf("serve exited with %d: %s", code, errb.String())
			case <-time.After(5 * time.Second):
				cancel()
				t.Fatal("serve did not start")
			}
			resp, err := http.Get(url + "/agents/" + strings.Trim(strings.Split(tc.want, ":")[1], `"`) + "/.well-known/agent-card.json")
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			cancel()
			assert.Equal(t, 0, <-done)
			assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		})
	}
}

func TestServeScenarioRefusesBadFile(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("agents:\n  - name: a\n    behaviors: [nope]\n"), 0o600))
	var out, errb bytes.Buffer
	code := serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--scenario", bad}, &out, &errb, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), bad+`:3:17: agents[0].behaviors[0]: unknown behavior "nope"`)

	// serve says every problem of the file, as validate does: a value of
	// the wrong type does not hide a bad behavior elsewhere.
	require.NoError(t, os.WriteFile(bad, []byte("agents:\n  - name: a\n    behaviors: [nope]\n  - name: b\n    timelines: {x: y}\n"), 0o600))
	errb.Reset()
	assert.Equal(t, 2, serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--scenario", bad}, &out, &errb, nil))
	assert.Contains(t, errb.String(), bad+`:3:17: agents[0].behaviors[0]: unknown behavior "nope"`)
	assert.Contains(t, errb.String(), bad+`:5:17: agents[1].timelines: expected a list, found a mapping`)
}

// Structural and semantic problems of one file come out of one run: an
// unknown key and a bad duration beside a misspelled behavior, a bad
// behavior parameter and a timeline for a skill the card does not have.
func TestValidateStructuralAndSemanticInOnePass(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "both.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`server:
  stepDelay: soon
agents:
  - name: a
    colour: blue
    card:
      skills:
        - id: s1
          name: One
    behaviors:
      - never-termnal
      - latency:dist=zipf
    timelines:
      - skill: nope
        steps:
          - state: working
`), 0o600))
	var out, errb bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"validate", bad}, &out, &errb))
	got := errb.String()
	assert.Contains(t, got, bad+`:2:14: server.stepDelay: "soon" is not a duration`, got)
	assert.Contains(t, got, `unknown key "colour"`, got)
	assert.Contains(t, got, `unknown behavior "never-termnal" (did you mean "never-terminal"?)`, got)
	assert.Contains(t, got, `dist must be fixed, uniform, normal or lognormal`, got)
	assert.Contains(t, got, `nope`, got)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	assert.Len(t, lines, 5, got)
}

// TestServeGRPCBanner: with --grpc the start-up line names the gRPC target
// and how agents below the root are reached on it.
func TestServeGRPCBanner(t *testing.T) {
	t.Parallel()
	var out, errb syncbuf.Buffer
	u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--grpc", "--addr", "127.0.0.1:0", "--log-level", "error"}, &out, &errb, ready)
	})
	assert.Contains(t, out.String(), "; gRPC at "+strings.TrimPrefix(u, "http://")+", tenant = agent name below the root)")
	assert.Equal(t, 0, stop())
}
