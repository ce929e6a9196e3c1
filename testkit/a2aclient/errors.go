package a2aclient

import (
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"

	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// RPCError is an A2A error answered by the agent (a JSON-RPC error, or an
// HTTP+JSON or gRPC google.rpc.Status read into the same code); find it
// with errors.As. It matches reconcile.ErrNotSupported (errors.Is) for
// UnsupportedOperationError and method-not-found, so the driver can tell a
// refused capability from a failure.
type RPCError struct {
	Code    int
	Message string
	// Data is the error's raw data member, if any.
	Data json.RawMessage
	// HTTPStatus is the status of the HTTP reply that carried the error.
	HTTPStatus int
	// Reason is the google.rpc.ErrorInfo reason of an HTTP+JSON or gRPC
	// error (TASK_NOT_FOUND, ...), which Code was read from.
	Reason string
	// GRPCCode is the status code of a gRPC error (codes.OK for the other
	// bindings): Code is read from Reason, or from it when there is none.
	GRPCCode codes.Code
}

// Error implements error.
func (e *RPCError) Error() string {
	if e.GRPCCode != codes.OK {
		return fmt.Sprintf("a2a: JSON-RPC error %d: %s (gRPC status %s)", e.Code, e.Message, e.GRPCCode)
	}
	return fmt.Sprintf("a2a: JSON-RPC error %d: %s", e.Code, e.Message)
}

// Is lets errors.Is(err, reconcile.ErrNotSupported) see refused
// operations, and errors.Is(err, &RPCError{Code: c}) see an error of code
// c whatever the binding carried it (the target's other fields are not
// compared), so a test checks TaskNotFoundError the same way over
// JSON-RPC, HTTP+JSON and gRPC.
func (e *RPCError) Is(target error) bool {
	if t, ok := target.(*RPCError); ok {
		return t.Code != 0 && t.Code == e.Code
	}
	return target == reconcile.ErrNotSupported &&
		(e.Code == wire.CodeUnsupportedOperation || e.Code == wire.CodeMethodNotFound)
}
