package interop

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
	cases := []struct {
		spec, action string
		kinds        []string
		err          string // "" for none, else a part of "Name: Message"
		// prefix: the events may stop short of kinds (the client drops
		// what it had not handed over when the call fails).
		prefix bool
	}{
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
		opts := []testkit.Option{testkit.WithGRPC()}
		if c.spec != "" {
			opts = append(opts, testkit.WithBehavior("", c.spec))
		}
		m := behaviorMock(t, 77, 5*time.Millisecond, opts...)
		mocks = append(mocks, m)
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "GRPC", Action: c.action, TimeoutMS: 2000})
	}
	res := pyProbe(t, jobs...)
	for i, c := range cases {
		r := res[i]
		name := c.spec
		if name == "" {
			name = "honest"
		}
		if c.err == "" {
			assert.Nil(t, r.Error, "%s: %s", name, r.Raw)
		} else if assert.NotNil(t, r.Error, "%s: %s", name, r.Raw) {
			assert.Contains(t, r.Error.Name+": "+r.Error.Message, c.err, name)
		}
		if got := (jsProbeResult{Events: r.Events}).eventKinds(); c.prefix {
			assert.True(t, len(got) <= len(c.kinds) && slices.Equal(c.kinds[:len(got)], got),
				"%s: events %v are not a start of %v: %s", name, got, c.kinds, r.Raw)
		} else if c.action == "stream" {
			assert.Equal(t, c.kinds, got, "%s: %s", name, r.Raw)
		}
		for _, e := range mocks[i].Journal() {
			if e.Op != "" && e.Binding != "" {
				assert.Equal(t, "GRPC", string(e.Binding), "%s: entry %d", name, e.Seq)
			}
		}
	}
}
