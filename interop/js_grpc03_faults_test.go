package interop

import (
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// TestJSBehaviorsOverGRPC03 records what @a2a-js/sdk 1.3.0's v0.3 gRPC
// transport (LegacyGrpcTransport, PROBE_LEGACY=1, reached from a v0.3
// card) observes under the faults' gRPC meanings, as
// TestJSBehaviorsOverGRPC does for its v1.0 gRPC transport: the same
// events and the same errors under all eight (both transports sit on
// @grpc/grpc-js, which words the statuses).
func TestJSBehaviorsOverGRPC03(t *testing.T) {
	t.Parallel()
	requireJSInstalled(t)
	for _, c := range []grpcFault{
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
			m := c.mock(t, testkit.WithDialect(wire.V03))
			r := jsProbeEnv(t, []string{"PROBE_TIMEOUT_MS=1500", "PROBE_LEGACY=1"}, m.URL, "GRPC", c.action)
			c.check(t, r.Error, func(e *jsError) string { return e.Message }, r.Events, r.Raw, m.Journal())
			v03 := 0
			for _, e := range m.Journal() {
				if e.Kind == server.EntryRequest && e.Dialect == wire.V03 && e.Binding == wire.BindingGRPC {
					v03++
				}
			}
			if v03 == 0 {
				t.Errorf("%s: no v0.3 gRPC call journaled", c.name())
			}
		})
	}
}
