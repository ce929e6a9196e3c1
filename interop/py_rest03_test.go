package interop

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestPyREST03: a2a-sdk 1.3.0 reaching a v0.3-card agent over HTTP+JSON
// uses its v0.3 compatibility REST transport (CompatRestTransport), which
// posts the v0.3 proto's JSON to <interface url>/v1/...: the card declares
// that interface at {agent}/v0.3. The honest lifecycle runs as over v1.0
// (send, stream to completion, get with historyLength, subscribe by POST,
// cancel, input-required and its continuation, typed errors) but for
// ListTasks, which the SDK refuses itself (NotImplementedError: v0.3 has
// none) without a request. Under stream-no-final the SDK reports the
// stream's events and its end, the last one a completed status without
// final, as if the task were done.
func TestPyREST03(t *testing.T) {
	t.Parallel()
	honest, input := jsAgent()
	honest.Name = "py-rest03"
	honest.Card.Dialect = wire.V03
	faulty, _ := jsAgent()
	faulty.Name = "py-rest03-no-final"
	faulty.Card.Dialect = wire.V03
	faulty.Behaviors = append(faulty.Behaviors, must(behaviors.Parse("stream-no-final")))
	s := startMock(t, server.Config{Seed: 303, StepDelay: 2 * time.Millisecond, Agents: []server.AgentConfig{honest, faulty}})
	res := pyProbe(t,
		pyJob{URL: s.URL() + s.AgentPath(honest.Name), Transport: "HTTP+JSON", Action: "lifecycle", Arg: slowSkillID + "," + input, TimeoutMS: 60000},
		pyJob{URL: s.URL() + s.AgentPath(faulty.Name), Transport: "HTTP+JSON", Action: "stream"})

	r := res[0]
	require.Nil(t, r.Error, r.Raw)
	l := r.Life
	require.Len(t, l.Failures, 1, "only ListTasks fails: %s", r.Raw)
	assert.Equal(t, jsError{Name: "NotImplementedError", Message: "ListTasks is not supported in A2A v0.3 REST."}, jsError{Name: l.Failures[0].Name, Message: l.Failures[0].Message})
	assertPyLifecycle(t, l)

	f := res[1]
	require.Nil(t, f.Error, f.Raw)
	assert.True(t, f.Ended)
	assert.Equal(t, jsHonest, f.eventKinds(), "the events, the last one without final")

	// Every call reached the v0.3 HTTP+JSON binding, journaled as such.
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			n++
			assert.Equal(t, wire.BindingREST, e.Binding, "request %d (%s %s)", e.Request, e.Op, e.Path)
			assert.Equal(t, wire.V03, e.Dialect, "request %d (%s)", e.Request, e.Op)
			assert.True(t, strings.Contains(e.Path, "/v0.3/v1/"), e.Path)
			assert.NotEqual(t, wire.OpListTasks, e.Op)
		}
	}
	assert.Greater(t, n, 10)
}
