package interop

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
)

// grpcFault is one case of TestJSBehaviorsOverGRPC and
// TestPyBehaviorsOverGRPC: a behavior (none: the honest agent), the probe's
// action, the events the SDK sees and a part of the error it raises ("" for
// none).
type grpcFault struct {
	spec, action string
	kinds        []string
	err          string
	// prefix: the events may stop short of kinds (the client's deadline
	// runs out on a loaded machine before every event came, or the client
	// drops what it had not handed over when the call fails).
	prefix bool
}

func (c grpcFault) name() string {
	if c.spec == "" {
		return "honest"
	}
	return c.spec
}

// mock starts a mock serving gRPC, with the case's behavior on its agent
// and, when given, opts (a v0.3 card, say).
func (c grpcFault) mock(t *testing.T, opts ...testkit.Option) *testkit.Mock {
	opts = append([]testkit.Option{testkit.WithGRPC()}, opts...)
	if c.spec != "" {
		opts = append(opts, testkit.WithBehavior("", c.spec))
	}
	return behaviorMock(t, 77, 5*time.Millisecond, opts...)
}

// check asserts what the SDK observed under the fault: its error (as
// errText words it), its events, and that the mock journaled every call as
// gRPC.
func (c grpcFault) check(t *testing.T, err *jsError, errText func(*jsError) string, events []jsEvent, raw string, journal []server.Entry) {
	t.Helper()
	name := c.name()
	if c.err == "" {
		assert.Nil(t, err, "%s: %s", name, raw)
	} else if assert.NotNil(t, err, "%s: %s", name, raw) {
		assert.Contains(t, errText(err), c.err, name)
	}
	if got := (jsProbeResult{Events: events}).eventKinds(); c.prefix {
		assert.True(t, len(got) <= len(c.kinds) && slices.Equal(c.kinds[:len(got)], got),
			"%s: events %v are not a start of %v: %s", name, got, c.kinds, raw)
	} else if c.action == "stream" {
		assert.Equal(t, c.kinds, got, "%s: %s", name, raw)
	}
	for _, e := range journal {
		if e.Op != "" && e.Binding != "" {
			assert.Equal(t, "GRPC", string(e.Binding), "%s: entry %d", name, e.Seq)
		}
	}
}
