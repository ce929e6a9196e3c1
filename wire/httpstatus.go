package wire

// The HTTP statuses the HTTP+JSON binding answers errors with. They are part
// of the wire format (spec §5.4's table), named here so that the codec does
// not import net/http: the transport-free engine imports this package and
// must not depend on an HTTP stack.
const (
	statusBadRequest            = 400
	statusUnauthorized          = 401
	statusForbidden             = 403
	statusNotFound              = 404
	statusMethodNotAllowed      = 405
	statusConflict              = 409
	statusPreconditionFailed    = 412
	statusRequestEntityTooLarge = 413
	statusUnsupportedMediaType  = 415
	statusTooManyRequests       = 429
	statusInternalServerError   = 500
	statusNotImplemented        = 501
	statusServiceUnavailable    = 503
	statusGatewayTimeout        = 504
)
