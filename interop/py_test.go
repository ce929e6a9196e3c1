package interop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestPythonClient drives the honest lifecycle with the official Python SDK
// (a2a-sdk, py/probe.py's lifecycle action), forced onto JSON-RPC, onto
// HTTP+JSON and onto gRPC in turn: card discovery, a non-streaming send (completed task
// with its artifact), a stream (ordered events, terminal state last, stream
// ends), GetTask with historyLength, ListTasks page by page, SubscribeToTask
// on a running task canceled meanwhile, CancelTask, input-required then the
// continuation of the same task, and the SDK's typed errors.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	// probe.py runs the jobs at once: each transport gets an agent of its
	// own, so that one run's ListTasks pages never see another's tasks
	// (over gRPC the card's tenant routes the calls to it).
	transports := append(slices.Clone(pyTransports), "GRPC")
	var (
		agents []server.AgentConfig
		input  string
	)
	for _, tr := range transports {
		var ac server.AgentConfig
		ac, input = jsAgent()
		ac.Name = "py-" + strings.NewReplacer("+", "-").Replace(strings.ToLower(tr))
		agents = append(agents, ac)
	}
	s := startMock(t, server.Config{Seed: 43, StepDelay: 2 * time.Millisecond, GRPC: true, Agents: agents})
	var jobs []pyJob
	for i, tr := range transports {
		jobs = append(jobs, pyJob{URL: s.URL() + s.AgentPath(agents[i].Name), Transport: tr, Action: "lifecycle",
			Arg: slowSkillID + "," + input, TimeoutMS: 60000})
	}
	res := pyProbe(t, jobs...)

	for i, want := range transports {
		r := res[i]
		t.Run(want, func(t *testing.T) {
			require.Nil(t, r.Error, r.Raw)
			l := r.Life
			assert.Empty(t, l.Failures, "steps that failed in the Python SDK")
			assertPyLifecycle(t, l)
			if assert.NotNil(t, l.List, "list") {
				assert.GreaterOrEqual(t, l.List.TotalSize, 2)
				seen := map[string]bool{}
				for _, p := range l.List.Pages {
					assert.Len(t, p, 1, "pageSize 1 is honoured")
					for _, id := range p {
						assert.False(t, seen[id], "task %s on two pages", id)
						seen[id] = true
					}
				}
				assert.Len(t, seen, l.List.TotalSize, "the pages together list every task")
			}
		})
	}

	// The mock saw every call over the binding each run forced, in v1.0,
	// with the A2A-Version header.
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
