package behaviors_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func TestNeverTerminal(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, func(c *server.Config) { c.TaskRetention = 1 }, parse(t, "never-terminal:call=1"))

	a := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	require.Zero(t, a.Code)
	assert.Equal(t, "working", a.Task.State)
	assert.Zero(t, a.Task.Artifacts)
	// Out of scope (call 2 onwards): honest, and the retention of 1 would
	// evict the first task were it terminal: a working task is never
	// collected.
	for range 3 {
		assert.Equal(t, "completed", r.sendTo(wire.V10, message(wire.V10, "go", "quick", "")).Task.State)
	}
	for range 3 {
		assert.Equal(t, "working", r.get(wire.V10, a.Task.ID).Task.State)
		assert.Equal(t, "working", r.get(wire.V03, a.Task.ID).Task.State)
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, journalStates(r.srv, a.Task.ID))
}

// On a stream the client sees working and then only keep-alives; an
// input-needing task's continuation and a scripted timeline without working
// stop at working too.
func TestNeverTerminalStreamAndScripts(t *testing.T) {
	t.Parallel()
	script := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateCompleted}}
	r := newLifecycleRig(t, func(c *server.Config) { c.Agents[0].Timelines = map[string]timeline.Timeline{"quick": script} },
		parse(t, "never-terminal:skill=ask"))

	obs, closed := r.streamLeft(wire.V10, message(wire.V10, "go", "ask", ""), 2)
	require.Equal(t, "task:submitted status:working", kinds(obs))
	assert.Equal(t, "client gone", closed, "the stream waits for a state that never comes")
	c := r.sendTo(wire.V10, message(wire.V10, "input", "ask", obs[0].TaskID))
	assert.Equal(t, "working", c.Task.State)

	q := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "completed", q.Task.State, "out of scope, the script plays")
}

// block=true holds a blocking send until the client gives up; a send that
// asks to return immediately is still answered, and Close does not wait for
// the held request (goleak in TestMain checks nothing is left).
func TestNeverTerminalBlock(t *testing.T) {
	t.Parallel()
	b, err := behaviors.Parse("never-terminal:block=true")
	require.NoError(t, err)
	srv, err := server.New(server.Config{Seed: 3, StepDelay: time.Millisecond, Agents: []server.AgentConfig{{Name: "a", Behaviors: []behaviors.Behavior{b}}}})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = srv.Close() })

	send := func(returnImmediately bool, timeout time.Duration) (*http.Response, error) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":%t}}}`, returnImmediately)
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		c := &http.Client{Timeout: timeout, Transport: &http.Transport{}}
		defer c.CloseIdleConnections()
		resp, err := c.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return resp, err
	}

	_, err = send(false, 300*time.Millisecond)
	require.Error(t, err, "the blocking send is never answered")
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "the client gave up: %v", err)

	resp, err := send(true, 5*time.Second)
	require.NoError(t, err, "returnImmediately is answered")
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	var held string
	for _, e := range srv.Journal().Entries() {
		if e.Kind == server.EntryEvent && e.TaskID != "" {
			held = e.TaskID
			break
		}
	}
	require.NotEmpty(t, held)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking}, journalStates(srv, held),
		"the held task still reached working and stayed there")
}
