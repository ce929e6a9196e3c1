package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestJSClientV03Agent: @a2a-js/sdk's v0.3 compatibility layer (legacyCompat
// on its card resolver and transport factories) reads a v0.3 card and
// drives the agent over v0.3 JSON-RPC and over the v0.3 HTTP+JSON binding
// the card declares at {agent}/v0.3 (LegacyRestTransport), and, with the
// gRPC binding served, over the v0.3 gRPC service the card declares at
// host:port (LegacyGrpcTransport): send, stream, get, resubscribe, cancel
// and typed errors, on all three.
func TestJSClientV03Agent(t *testing.T) {
	t.Parallel()
	requireJSInstalled(t)
	ac, input := jsAgent()
	ac.Card.Dialect = wire.V03
	s := startMock(t, server.Config{Seed: 43, StepDelay: 2 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{ac}})

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("js", "client.mjs"), s.URL(),
		"--slow-skill", slowSkillID, "--input-skill", input, "--legacy", "--grpc")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node js/client.mjs --legacy failed:\n%s", stderr.String())
	var sum jsSummary
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &sum), "client.mjs printed:\n%s", stdout.String())
	require.Len(t, sum.Runs, 3)

	for i, want := range []string{"JSONRPC", "HTTP+JSON", "GRPC"} {
		r := sum.Runs[i]
		t.Run(want, func(t *testing.T) {
			assert.Equal(t, want, r.TransportName, "the SDK picked another transport than the one forced")
			assert.Equal(t, "0.3", r.ProtocolVersion, "the SDK's v0.3 transport")
			assert.Empty(t, r.Failures, "steps that failed in the JS SDK")
			if assert.NotNil(t, r.Send, "send") {
				assert.Equal(t, "TASK_STATE_COMPLETED", r.Send.State)
				assert.NotEmpty(t, r.Send.ArtifactText)
			}
			if assert.NotNil(t, r.Stream, "stream") && assert.NotEmpty(t, r.Stream.Events) {
				ev := r.Stream.Events
				assert.True(t, r.Stream.Ended)
				assert.Equal(t, "TASK_STATE_SUBMITTED", ev[0].State)
				assert.Equal(t, "TASK_STATE_COMPLETED", ev[len(ev)-1].State, "the terminal state is last: %+v", ev)
			}
			if assert.NotNil(t, r.Get, "get") && r.Send != nil {
				assert.Equal(t, r.Send.TaskID, r.Get.TaskID)
				assert.Equal(t, r.Send.ArtifactText, r.Get.ArtifactText)
			}
			assert.Nil(t, r.List, "v0.3 has no tasks/list")
			if assert.NotNil(t, r.Resubscribe, "resubscribe") && assert.NotEmpty(t, r.Resubscribe.Events) {
				assert.Equal(t, r.Resubscribe.TaskID, r.Resubscribe.Events[0].TaskID)
				assert.Contains(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, r.Resubscribe.Events[0].State)
			}
			if assert.NotNil(t, r.Cancel, "cancel") {
				assert.Equal(t, "TASK_STATE_CANCELED", r.Cancel.State)
				assert.Equal(t, "TASK_STATE_CANCELED", r.Cancel.StateAfter)
			}
			if assert.NotNil(t, r.InputRequired, "inputRequired") {
				assert.Equal(t, "TASK_STATE_INPUT_REQUIRED", r.InputRequired.First.State)
				assert.Equal(t, r.InputRequired.First.TaskID, r.InputRequired.Reply.TaskID, "the reply continues the same task")
				assert.Equal(t, "TASK_STATE_COMPLETED", r.InputRequired.Reply.State)
			}
			assert.Equal(t, "TaskNotFoundError", r.Errors["getUnknown"].Name, "%+v", r.Errors["getUnknown"])
			assert.Equal(t, "TaskNotCancelableError", r.Errors["cancelTerminal"].Name, "%+v", r.Errors["cancelTerminal"])
		})
	}

	// Every call was v0.3: JSON-RPC at the agent's URL, HTTP+JSON under
	// /v0.3/v1/, gRPC to a2a.v1.A2AService.
	bindings := map[wire.Binding]int{}
	for _, e := range s.Journal().Entries() {
		if e.Kind != server.EntryRequest || e.Op == "" {
			continue
		}
		bindings[e.Binding]++
		assert.Equal(t, wire.V03, e.Dialect, "request %d (%s)", e.Request, e.Op)
		if e.Binding == wire.BindingREST {
			assert.True(t, strings.Contains(e.Path, "/v0.3/v1/"), e.Path)
		}
		assert.Empty(t, e.Ignored, "request %d (%s %s) carried fields v0.3 does not define", e.Request, e.Method, e.Binding)
	}
	assert.Positive(t, bindings[wire.BindingJSONRPC])
	assert.Positive(t, bindings[wire.BindingREST])
	assert.Positive(t, bindings[wire.BindingGRPC])
	assert.Len(t, bindings, 3)
}
