// Package a2apb is the Go code generated from the A2A v1.0 proto
// (package lf.a2a.v1, service A2AService) for the mock's gRPC binding. It
// is generated here, with the annotations stripped by gen.sh, and never
// taken from an SDK: the mock must not share a codec with the clients it
// tests. These are the proto's message types, the schema itself; testkit's
// own client uses them too, with a conversion of its own
// (testkit/a2aclient/internal/grpcwire), not the mock's.
package a2apb

//go:generate sh gen.sh
