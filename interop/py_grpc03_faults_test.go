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
	for i, m := range pyGRPCFaults(t, testkit.WithDialect(wire.V03)) {
		requireV03GRPCCalls(t, i, m.Journal())
	}
}

// requireV03GRPCCalls checks that a journal's calls were v0.3 and that it
// holds at least one v0.3 gRPC request (case i of a fault table).
func requireV03GRPCCalls(t *testing.T, i int, journal []server.Entry) {
	t.Helper()
	n := 0
	for _, e := range journal {
		if e.Op != "" && e.Dialect != "" && e.Dialect != wire.V03 {
			t.Errorf("case %d: entry %d is a %s call, not v0.3", i, e.Seq, e.Dialect)
		}
		if e.Kind == server.EntryRequest && e.Dialect == wire.V03 && e.Binding == wire.BindingGRPC {
			n++
		}
	}
	if n == 0 {
		t.Errorf("case %d: no v0.3 gRPC call journaled", i)
	}
}
