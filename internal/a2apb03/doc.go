// Package a2apb03 is the Go code generated from the A2A v0.3.0 proto
// (package a2a.v1, service A2AService) for the mock's v0.3 gRPC binding.
// It is generated here, with the annotations stripped by gen.sh, and never
// taken from an SDK: the mock must not share a codec with the clients it
// tests.
package a2apb03

//go:generate sh gen.sh
