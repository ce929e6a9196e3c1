package interop

import "testing"

// TestJSBehaviorsOverGRPC03 records what @a2a-js/sdk 1.3.0's v0.3 gRPC
// transport (LegacyGrpcTransport, PROBE_LEGACY=1, reached from a v0.3
// card) observes under the faults' gRPC meanings, as
// TestJSBehaviorsOverGRPC does for its v1.0 gRPC transport: the same
// events and the same errors under all eight (both transports sit on
// @grpc/grpc-js, which words the statuses).
func TestJSBehaviorsOverGRPC03(t *testing.T) {
	t.Parallel()
	requireJSInstalled(t)
	jsGRPCFaults(t, true)
}
