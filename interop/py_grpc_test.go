package interop

import (
	"testing"

	"github.com/a2amock/a2amock/testkit"
)

// TestPyBehaviorsOverGRPC records what the official Python a2a-sdk's gRPC
// transport (grpcio) observes under the faults' gRPC meanings, as
// TestJSBehaviorsOverGRPC does for @a2a-js/sdk. Protocol faults reach it as
// over HTTP. A 503 is UNAVAILABLE and a reset INTERNAL (RST_STREAM), both
// as A2AClientError; a call cut mid-message, with no status, is UNKNOWN
// ("Stream removed"), and grpcio may drop the whole message it received
// before the cut but had not handed over yet (under load, no event at all);
// a hung stream ends at the client's own deadline; and an answer that is
// not gRPC (a JSON body) is UNKNOWN as well.
func TestPyBehaviorsOverGRPC(t *testing.T) {
	t.Parallel()
	pyGRPCFaults(t)
}

// pyGRPCFaults runs probe.py against a mock per gRPC fault, opts added to
// each (a v0.3 card, say), checks what the SDK observed against the same
// expectations whatever the opts, and returns the mocks.
func pyGRPCFaults(t *testing.T, opts ...testkit.Option) []*testkit.Mock {
	t.Helper()
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
	// probe.py runs the jobs at once, one mock each.
	var (
		jobs  []pyJob
		mocks []*testkit.Mock
	)
	for _, c := range cases {
		m := c.mock(t, opts...)
		mocks = append(mocks, m)
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "GRPC", Action: c.action, TimeoutMS: 2000})
	}
	nameAndMessage := func(e *jsError) string { return e.Name + ": " + e.Message }
	for i, r := range pyProbe(t, jobs...) {
		cases[i].check(t, r.Error, nameAndMessage, r.Events, r.Raw, mocks[i].Journal())
	}
	return mocks
}
