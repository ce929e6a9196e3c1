// Package httpstatus names the HTTP statuses the HTTP+JSON binding answers
// errors with. They are part of the wire format (spec §5.4's table), named
// here so that the codecs do not import net/http: the transport-free
// engine imports them and must not depend on an HTTP stack. GRPCName
// gives each the google.rpc.Code name an error body carries with it.
package httpstatus

// The statuses.
const (
	BadRequest            = 400
	Unauthorized          = 401
	Forbidden             = 403
	NotFound              = 404
	MethodNotAllowed      = 405
	Conflict              = 409
	PreconditionFailed    = 412
	RequestEntityTooLarge = 413
	UnsupportedMediaType  = 415
	TooManyRequests       = 429
	InternalServerError   = 500
	NotImplemented        = 501
	ServiceUnavailable    = 503
	GatewayTimeout        = 504
)

// grpcNames maps HTTP statuses to google.rpc.Code names, for errors whose
// HTTP status was overridden and so has no name from Error.Status.
var grpcNames = map[int]string{
	BadRequest:   "INVALID_ARGUMENT",
	Unauthorized: "UNAUTHENTICATED",
	Forbidden:    "PERMISSION_DENIED",
	NotFound:     "NOT_FOUND",
	// A method the path does not allow: what grpc-gateway answers.
	MethodNotAllowed: "UNIMPLEMENTED",
	// ContentTypeNotSupportedError's code (v1.0.0 gave it HTTP 415).
	UnsupportedMediaType: "INVALID_ARGUMENT",
	// A body over the size limit: gRPC's code for a message too large.
	RequestEntityTooLarge: "RESOURCE_EXHAUSTED",
	Conflict:              "ABORTED",
	PreconditionFailed:    "FAILED_PRECONDITION",
	TooManyRequests:       "RESOURCE_EXHAUSTED",
	NotImplemented:        "UNIMPLEMENTED",
	ServiceUnavailable:    "UNAVAILABLE",
	GatewayTimeout:        "DEADLINE_EXCEEDED",
	InternalServerError:   "INTERNAL",
	499:                   "CANCELLED",
}

// GRPCName is the google.rpc.Code name an HTTP+JSON error body gives an
// HTTP status: INTERNAL for an unmapped 5xx, UNKNOWN for another unmapped
// status.
func GRPCName(status int) string {
	if n, ok := grpcNames[status]; ok {
		return n
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}
