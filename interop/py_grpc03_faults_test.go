package interop

import (
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// TestPyBehaviorsOverGRPC03 records what a2a-sdk 1.3.0's v0.3 gRPC client
// (CompatGrpcTransport, reached from a v0.3 card) observes under the
// faults' gRPC meanings, as TestPyBehaviorsOverGRPC does for its v1.0
// gRPC transport: the same events and the same errors, word for word, under
// all eight (the SDK converts v0.3's messages and statuses to v1.0's
// before its caller sees them).
func TestPyBehaviorsOverGRPC03(t *testing.T) {
	t.Parallel()
	cases := []grpcFault{
		{"", "stream", jsHonest, "", false},
		{"skip-working", "stream", []string{"task:TASK_STATE_SUBMITTED", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}, "", false},
		{"stream-drop-events:rate=1", "stream", []string{"statusUpdate:TASK_STATE_COMPLETED"}, "", false},
		{"http-error:status=503,op=send", "send", nil, "A2AClientError: gRPC Error UNAVAILABLE", false},
		{"connection-reset:op=send", "send", nil, "A2AClientError: gRPC Error INTERNAL: Stream removed (RST_STREAM", false},
		{"stream-eof-mid-frame:after=1", "stream", []string{"task:TASK_STATE_SUBMITTED"}, "A2AClientError: gRPC Error UNKNOWN: Stream removed", true},
		{"stream-hang", "stream", jsHonest, "TimeoutError", true},
		{"stream-error-as-json", "stream", nil, "A2AClientError: gRPC Error UNKNOWN", false},
	}
	var (
		jobs  []pyJob
		mocks []*testkit.Mock
	)
	for _, c := range cases {
		m := c.mock(t, testkit.WithDialect(wire.V03))
		mocks = append(mocks, m)
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "GRPC", Action: c.action, TimeoutMS: 2000})
	}
	nameAndMessage := func(e *jsError) string { return e.Name + ": " + e.Message }
	for i, r := range pyProbe(t, jobs...) {
		cases[i].check(t, r.Error, nameAndMessage, r.Events, r.Raw, mocks[i].Journal())
		v03 := 0
		for _, e := range mocks[i].Journal() {
			if e.Op != "" && e.Dialect != "" && e.Dialect != wire.V03 {
				t.Errorf("%s: entry %d is a %s call, not v0.3", cases[i].name(), e.Seq, e.Dialect)
			}
			if e.Kind == server.EntryRequest && e.Dialect == wire.V03 && e.Binding == wire.BindingGRPC {
				v03++
			}
		}
		if v03 == 0 {
			t.Errorf("%s: no v0.3 gRPC call journaled", cases[i].name())
		}
	}
}
