package wire

import "github.com/a2amock/a2amock/wire/internal/httpstatus"

// grpcNames maps HTTP statuses to google.rpc.Code names, for errors whose
// HTTP status was overridden and so has no name from Error.Status.
var grpcNames = map[int]string{
	httpstatus.BadRequest:   "INVALID_ARGUMENT",
	httpstatus.Unauthorized: "UNAUTHENTICATED",
	httpstatus.Forbidden:    "PERMISSION_DENIED",
	httpstatus.NotFound:     "NOT_FOUND",
	// A method the path does not allow: what grpc-gateway answers.
	httpstatus.MethodNotAllowed: "UNIMPLEMENTED",
	// ContentTypeNotSupportedError's code (v1.0.0 gave it HTTP 415).
	httpstatus.UnsupportedMediaType: "INVALID_ARGUMENT",
	// A body over the size limit: gRPC's code for a message too large.
	httpstatus.RequestEntityTooLarge: "RESOURCE_EXHAUSTED",
	httpstatus.Conflict:              "ABORTED",
	httpstatus.PreconditionFailed:    "FAILED_PRECONDITION",
	httpstatus.TooManyRequests:       "RESOURCE_EXHAUSTED",
	httpstatus.NotImplemented:        "UNIMPLEMENTED",
	httpstatus.ServiceUnavailable:    "UNAVAILABLE",
	httpstatus.GatewayTimeout:        "DEADLINE_EXCEEDED",
	httpstatus.InternalServerError:   "INTERNAL",
	499:                              "CANCELLED",
}

// GRPCStatusName is the google.rpc.Code name an HTTP+JSON error body
// gives an HTTP status: INTERNAL for an unmapped 5xx, UNKNOWN for another
// unmapped status.
func GRPCStatusName(status int) string {
	if n, ok := grpcNames[status]; ok {
		return n
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}
