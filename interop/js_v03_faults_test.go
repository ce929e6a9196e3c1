package interop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestJSLegacyStreamFaults drives @a2a-js/sdk's v0.3 compatibility layer
// (LegacyJsonRpcTransport and LegacyRestTransport, over the v0.3 JSON-RPC
// and HTTP+JSON bindings) through the stream faults of a v0.3 agent, and
// pins what it makes of each.
func TestJSLegacyStreamFaults(t *testing.T) {
	t.Parallel()
	requireJSInstalled(t)
	honest := []string{"task:TASK_STATE_SUBMITTED", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}
	for _, c := range []struct {
		spec  string
		kinds []string
		// ended is a stream the SDK ended without an error; else errName
		// (per transport) is the error it raised.
		ended   bool
		errName map[string]string
		errText map[string]string
	}{
		{spec: "", kinds: honest, ended: true},
		// v0.3 marks the last event final:true; the SDK does not look at
		// the flag, so its absence changes nothing.
		{spec: "stream-no-final", kinds: honest, ended: true},
		// Nor does it stop at final:true: it reads to EOF and waits on a
		// stream the agent keeps open after its final event, until the
		// caller's AbortSignal.
		{spec: "stream-hang", kinds: honest,
			errName: map[string]string{"JSONRPC": "TimeoutError", "HTTP+JSON": "TimeoutError"}},
		// A frame cut in half at EOF is dropped without an error: the
		// stream ends cleanly after the whole events, as on v1.0.
		{spec: "stream-eof-mid-frame:after=2", kinds: honest[:2], ended: true},
		{spec: "stream-drop-events:rate=1", kinds: honest[3:], ended: true},
		// A JSON error body in place of the stream is raised, typed only
		// over JSON-RPC.
		{spec: "stream-error-as-json",
			errName: map[string]string{"JSONRPC": "JsonRpcTransportError", "HTTP+JSON": "Error"},
			errText: map[string]string{"JSONRPC": "streaming failed", "HTTP+JSON": "REST error: streaming failed (Code: -32603)"}},
	} {
		name := c.spec
		if name == "" {
			name = "honest"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ac := v03Agent("legacy", 301)
			if c.spec != "" {
				ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse(c.spec)))
			}
			s := startMock(t, server.Config{Seed: 301, StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{ac}})
			for _, tr := range []string{"JSONRPC", "HTTP+JSON"} {
				r := jsProbeEnv(t, []string{"PROBE_LEGACY=1", "PROBE_TIMEOUT_MS=1500"}, s.URL()+"/agents/legacy/", tr, "stream")
				got := r.eventKinds()
				if c.kinds == nil {
					assert.Empty(t, got, "%s: %s", tr, r.Raw)
				} else {
					assert.Equal(t, c.kinds, got, "%s: %s", tr, r.Raw)
				}
				if c.ended {
					assert.True(t, r.Ended, "%s: the stream ends cleanly: %s", tr, r.Raw)
					assert.Nil(t, r.Error, "%s: %s", tr, r.Raw)
					continue
				}
				assert.False(t, r.Ended, "%s: %s", tr, r.Raw)
				if assert.NotNil(t, r.Error, "%s: %s", tr, r.Raw) {
					assert.Equal(t, c.errName[tr], r.Error.Name, "%s: %s", tr, r.Raw)
					if want := c.errText[tr]; want != "" {
						assert.Equal(t, want, r.Error.Message, "%s", tr)
					}
				}
			}
			// Both transports spoke v0.3, each on its own binding.
			bindings := map[wire.Binding]int{}
			for _, e := range s.Journal().Entries() {
				if e.Kind == server.EntryRequest && e.Op != "" {
					assert.Equal(t, wire.V03, e.Dialect, "request %d (%s %s)", e.Request, e.Method, e.Op)
					bindings[e.Binding]++
				}
			}
			assert.Equal(t, map[wire.Binding]int{wire.BindingJSONRPC: 1, wire.BindingREST: 1}, bindings)
		})
	}
}
