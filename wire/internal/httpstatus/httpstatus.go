// Package httpstatus names the HTTP statuses the HTTP+JSON binding answers
// errors with. They are part of the wire format (spec §5.4's table), named
// here so that the codecs do not import net/http: the transport-free
// engine imports them and must not depend on an HTTP stack.
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
