package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// jsSDKVersion is the @a2a-js/sdk version pinned in js/package.json and the
// lockfile; the test refuses to run against anything else.
const jsSDKVersion = "1.3.0"

// slowSkillID names a skill scripted to stay working until canceled, so the
// JS client's cancel and resubscribe steps never race the lifecycle.
const slowSkillID = "long-haul"

// jsSummary is the JSON document js/client.mjs prints.
type jsSummary struct {
	SDK  string  `json:"sdk"`
	Runs []jsRun `json:"runs"`
}

type jsRun struct {
	Transport       string      `json:"transport"`
	TransportName   string      `json:"transportName"`
	ProtocolVersion string      `json:"protocolVersion"`
	Failures        []jsError   `json:"failures"`
	Send            *jsTask     `json:"send"`
	Stream          *jsStream   `json:"stream"`
	Get             *jsTask     `json:"get"`
	List            *jsList     `json:"list"`
	Resubscribe     *jsResub    `json:"resubscribe"`
	Cancel          *jsCancel   `json:"cancel"`
	InputRequired   *jsInputReq `json:"inputRequired"`
	Errors          map[string]jsError
}

type jsTask struct {
	TaskID       string `json:"taskId"`
	ContextID    string `json:"contextId"`
	State        string `json:"state"`
	Artifacts    int    `json:"artifacts"`
	ArtifactText string `json:"artifactText"`
	StatusText   string `json:"statusText"`
	History      int    `json:"history"`
}

type jsEvent struct {
	Kind   string `json:"kind"`
	TaskID string `json:"taskId"`
	State  string `json:"state"`
}

type jsStream struct {
	Events []jsEvent `json:"events"`
	Ended  bool      `json:"ended"`
}

type jsList struct {
	TotalSize int        `json:"totalSize"`
	Pages     [][]string `json:"pages"`
}

type jsResub struct {
	TaskID      string    `json:"taskId"`
	StateBefore string    `json:"stateBefore"`
	Events      []jsEvent `json:"events"`
}

type jsCancel struct {
	TaskID      string `json:"taskId"`
	StateBefore string `json:"stateBefore"`
	State       string `json:"state"`
	StateAfter  string `json:"stateAfter"`
}

type jsInputReq struct {
	First jsTask `json:"first"`
	Reply jsTask `json:"reply"`
}

type jsError struct {
	Step    string `json:"step"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

// requireJSInstalled fails (never skips) when the JS SDK is not installed:
// the interop proof is only a proof if it runs.
func requireJSInstalled(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("node")
	require.NoError(t, err, "node is not on PATH; install Node.js >= 20 to run the @a2a-js/sdk interop test")
	pkg := filepath.Join("js", "node_modules", "@a2a-js", "sdk", "package.json")
	b, err := os.ReadFile(pkg)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run `npm ci --prefix interop/js` (from the repository root) before `go test`", pkg)
	}
	require.NoError(t, err)
	var meta struct {
		Version string `json:"version"`
	}
	require.NoError(t, json.Unmarshal(b, &meta))
	require.Equal(t, jsSDKVersion, meta.Version, "installed @a2a-js/sdk differs from the lockfile: run `npm ci --prefix interop/js`")
}

// jsAgent is a v1.0 agent with one skill that needs input and one scripted
// to stay working until canceled.
func jsAgent() (server.AgentConfig, string) {
	c := cards.Generate("js-peer", 41)
	input := inputSkill(c)
	c.Skills = append(c.Skills, cards.Skill{
		ID: slowSkillID, Name: "Long haul", Description: "Works until it is canceled.",
		Tags: []string{"slow"}, InputModes: []string{cards.ModeText}, OutputModes: []string{cards.ModeText},
	})
	return server.AgentConfig{
		Name: "js-peer",
		Card: c,
		Timelines: map[string]timeline.Timeline{slowSkillID: {
			{Kind: timeline.StepState, State: wire.StateSubmitted},
			{Kind: timeline.StepState, State: wire.StateWorking},
			{Kind: timeline.StepStop},
		}},
	}, input
}

func TestJSClient(t *testing.T) {
	t.Parallel()
	requireJSInstalled(t)
	ac, input := jsAgent()
	s := startMock(t, server.Config{Seed: 41, StepDelay: 2 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{ac}})

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("js", "client.mjs"), s.URL(),
		"--slow-skill", slowSkillID, "--input-skill", input, "--grpc")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node js/client.mjs failed:\n%s", stderr.String())

	var sum jsSummary
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &sum), "client.mjs printed:\n%s", stdout.String())
	if os.Getenv("INTEROP_DUMP") != "" {
		t.Log(stdout.String())
	}
	require.Len(t, sum.Runs, 3)

	for i, want := range []struct {
		transport string
		binding   wire.Binding
	}{{"JSONRPC", wire.BindingJSONRPC}, {"HTTP+JSON", wire.BindingREST}, {"GRPC", wire.BindingGRPC}} {
		r := sum.Runs[i]
		t.Run(want.transport, func(t *testing.T) {
			assert.Equal(t, want.transport, r.Transport)
			assert.Equal(t, want.transport, r.TransportName, "the SDK picked another transport than the one forced")
			assert.Equal(t, "1.0", r.ProtocolVersion)
			assert.Empty(t, r.Failures, "steps that failed in the JS SDK")

			if assert.NotNil(t, r.Send, "send") {
				assert.Equal(t, "TASK_STATE_COMPLETED", r.Send.State)
				assert.Equal(t, 1, r.Send.Artifacts)
				assert.NotEmpty(t, r.Send.ArtifactText)
			}
			if assert.NotNil(t, r.Stream, "stream") {
				assert.True(t, r.Stream.Ended)
				ev := r.Stream.Events
				if assert.NotEmpty(t, ev) {
					assert.Equal(t, "TASK_STATE_SUBMITTED", ev[0].State, "first event %+v", ev[0])
					last := ev[len(ev)-1]
					assert.Equal(t, "statusUpdate", last.Kind)
					assert.Equal(t, "TASK_STATE_COMPLETED", last.State, "the terminal state is last")
					kinds := map[string]int{}
					for _, e := range ev {
						kinds[e.Kind]++
						assert.Equal(t, ev[0].TaskID, e.TaskID, "event of another task: %+v", e)
					}
					assert.Equal(t, 1, kinds["artifactUpdate"], "events %+v", ev)
				}
			}
			if assert.NotNil(t, r.Get, "get") && r.Send != nil {
				assert.Equal(t, r.Send.TaskID, r.Get.TaskID)
				assert.Equal(t, "TASK_STATE_COMPLETED", r.Get.State)
				assert.Equal(t, r.Send.ArtifactText, r.Get.ArtifactText)
				assert.Positive(t, r.Get.History)
			}
			if assert.NotNil(t, r.List, "list") {
				assert.GreaterOrEqual(t, r.List.TotalSize, 2)
				seen := map[string]bool{}
				for _, p := range r.List.Pages {
					assert.Len(t, p, 1, "pageSize 1 is honoured")
					for _, id := range p {
						assert.False(t, seen[id], "task %s on two pages", id)
						seen[id] = true
					}
				}
				assert.Len(t, seen, r.List.TotalSize, "the pages together list every task")
			}
			if assert.NotNil(t, r.Resubscribe, "resubscribe") && assert.NotEmpty(t, r.Resubscribe.Events) {
				first := r.Resubscribe.Events[0]
				assert.Equal(t, "task", first.Kind, "a re-attached stream starts with the snapshot")
				assert.Equal(t, r.Resubscribe.TaskID, first.TaskID)
				assert.Contains(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, first.State)
			}
			if assert.NotNil(t, r.Cancel, "cancel") {
				assert.Contains(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, r.Cancel.StateBefore)
				assert.Equal(t, "TASK_STATE_CANCELED", r.Cancel.State)
				assert.Equal(t, "TASK_STATE_CANCELED", r.Cancel.StateAfter)
			}
			if assert.NotNil(t, r.InputRequired, "inputRequired") {
				assert.Equal(t, "TASK_STATE_INPUT_REQUIRED", r.InputRequired.First.State)
				assert.NotEmpty(t, r.InputRequired.First.StatusText, "input-required carries the agent's question")
				assert.Equal(t, r.InputRequired.First.TaskID, r.InputRequired.Reply.TaskID, "the reply continues the same task")
				assert.Equal(t, "TASK_STATE_COMPLETED", r.InputRequired.Reply.State)
			}
			assert.Equal(t, "TaskNotFoundError", r.Errors["getUnknown"].Name, "%+v", r.Errors["getUnknown"])
			assert.Equal(t, "TaskNotCancelableError", r.Errors["cancelTerminal"].Name, "%+v", r.Errors["cancelTerminal"])
			assert.Equal(t, "UnsupportedOperationError", r.Errors["sendToTerminal"].Name, "%+v", r.Errors["sendToTerminal"])
		})
	}

	// The mock saw every call over the binding the run forced, in v1.0.
	bindings := map[wire.Binding]int{}
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			bindings[e.Binding]++
			assert.Equal(t, wire.V10, e.Dialect, "request %d (%s)", e.Request, e.Op)
		}
	}
	assert.Positive(t, bindings[wire.BindingJSONRPC])
	assert.Positive(t, bindings[wire.BindingREST])
	assert.Positive(t, bindings[wire.BindingGRPC])
	assert.Len(t, bindings, 3)
}
