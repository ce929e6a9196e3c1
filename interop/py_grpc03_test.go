package interop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestPyGRPC03: a2a-sdk 1.3.0 reaching a v0.3-card agent over gRPC uses its
// v0.3 compatibility gRPC transport (CompatGrpcTransport, the v0.3 proto's
// a2a.v1.A2AService), dialing the GRPC interface the v0.3 card declares at
// host:port. The honest lifecycle runs as over v0.3 HTTP+JSON (send,
// stream to completion, get with historyLength, subscribe, cancel,
// input-required and its continuation) but for ListTasks, which the SDK
// refuses itself (v0.3 has none); its errors are typed from the status
// message's leading v0.3 error name. Under stream-no-final the SDK reports
// every event and the stream's end, as for an honest stream: it converts
// v0.3 events to v1.0's, which have no final flag, and reads to the end.
func TestPyGRPC03(t *testing.T) {
	t.Parallel()
	honest, input := jsAgent()
	honest.Name = "py-grpc03"
	honest.Card.Dialect = wire.V03
	faulty, _ := jsAgent()
	faulty.Name = "py-grpc03-no-final"
	faulty.Card.Dialect = wire.V03
	faulty.Behaviors = append(faulty.Behaviors, must(behaviors.Parse("stream-no-final")))
	// v0.3 gRPC calls name no agent: each server hosts one v0.3 agent.
	s := startMock(t, server.Config{Seed: 304, StepDelay: 2 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{honest}})
	f := startMock(t, server.Config{Seed: 305, StepDelay: 2 * time.Millisecond, GRPC: true, Agents: []server.AgentConfig{faulty}})
	res := pyProbe(t,
		pyJob{URL: s.URL(), Transport: "GRPC", Action: "lifecycle", Arg: slowSkillID + "," + input, TimeoutMS: 60000},
		pyJob{URL: f.URL(), Transport: "GRPC", Action: "stream"})

	r := res[0]
	require.Nil(t, r.Error, r.Raw)
	l := r.Life
	require.Len(t, l.Failures, 1, "only ListTasks fails: %s", r.Raw)
	assert.Equal(t, "NotImplementedError", l.Failures[0].Name, "%+v", l.Failures[0])
	assertPyLifecycle(t, l)

	fr := res[1]
	require.Nil(t, fr.Error, fr.Raw)
	assert.True(t, fr.Ended)
	assert.Equal(t, jsHonest, fr.eventKinds())

	// Every call reached the v0.3 gRPC service, journaled as such.
	for _, srv := range []*server.Server{s, f} {
		n := 0
		for _, e := range srv.Journal().Entries() {
			if e.Kind == server.EntryRequest && e.Op != "" {
				n++
				assert.Equal(t, wire.BindingGRPC, e.Binding, "request %d (%s %s)", e.Request, e.Op, e.Method)
				assert.Equal(t, wire.V03, e.Dialect, "request %d (%s)", e.Request, e.Op)
			}
		}
		assert.Positive(t, n)
	}
}
