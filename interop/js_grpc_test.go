package interop

import (
	"testing"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// TestJSBehaviorsOverGRPC records what @a2a-js/sdk's gRPC transport (on
// @grpc/grpc-js) observes under the faults' gRPC meanings. Protocol faults
// reach it as over HTTP (skip-working, dropped events). The transport ones
// arrive as statuses: a 503 is UNAVAILABLE (14), a reset is RST_STREAM, a
// hung stream ends only at the client's own deadline, and a message cut in
// half is INTERNAL (13), "call ended without gRPC status". Before the mock
// stopped sending OK trailers after the cut message, the SDK reported that
// stream as ended cleanly. grpc-js does not check the answer's
// content-type: a JSON body read as a length-prefixed message claims a
// length it refuses (RESOURCE_EXHAUSTED, 8), where grpc-go refuses the
// content-type (UNKNOWN).
func TestJSBehaviorsOverGRPC(t *testing.T) {
	t.Parallel()
	jsGRPCFaults(t, false)
}

// jsGRPCFaults runs probe.mjs against a mock per gRPC fault, each a
// subtest, and checks what the SDK observed against the same expectations
// whether the agent's card is v1.0 or, with legacy, v0.3 (PROBE_LEGACY=1:
// the SDK's LegacyGrpcTransport, every call journaled as v0.3 over gRPC).
func jsGRPCFaults(t *testing.T, legacy bool) {
	for i, c := range []grpcFault{
		{"", "stream", jsHonest, "", false},
		{"skip-working", "stream", []string{"task:TASK_STATE_SUBMITTED", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}, "", false},
		{"stream-drop-events:rate=1", "stream", []string{"statusUpdate:TASK_STATE_COMPLETED"}, "", false},
		{"http-error:status=503,op=send", "send", nil, "sendMessage: 14 ", false},
		{"connection-reset:op=send", "send", nil, "RST_STREAM", false},
		{"stream-eof-mid-frame:after=1", "stream", []string{"task:TASK_STATE_SUBMITTED"}, "13 Received RST_STREAM with code 0 (Call ended without gRPC status)", false},
		{"stream-hang", "stream", jsHonest, "1 Cancelled on client", true},
		{"stream-error-as-json", "stream", nil, "8 Received message larger than max", false},
	} {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			env, opts := []string{"PROBE_TIMEOUT_MS=1500"}, []testkit.Option(nil)
			if legacy {
				env, opts = append(env, "PROBE_LEGACY=1"), append(opts, testkit.WithDialect(wire.V03))
			}
			m := c.mock(t, opts...)
			r := jsProbeEnv(t, env, m.URL, "GRPC", c.action)
			c.check(t, r.Error, func(e *jsError) string { return e.Message }, r.Events, r.Raw, m.Journal())
			if legacy {
				requireV03GRPCCalls(t, i, m.Journal())
			}
		})
	}
}
