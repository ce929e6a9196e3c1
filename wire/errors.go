package wire

import (
	"fmt"

	"github.com/a2amock/a2amock/wire/internal/httpstatus"
)

// JSON-RPC and A2A error codes (spec §6.1; the same in every dialect).
const (
	CodeParseError                = -32700
	CodeInvalidRequest            = -32600
	CodeMethodNotFound            = -32601
	CodeInvalidParams             = -32602
	CodeInternal                  = -32603
	CodeTaskNotFound              = -32001
	CodeTaskNotCancelable         = -32002
	CodePushNotSupported          = -32003
	CodeUnsupportedOperation      = -32004
	CodeContentTypeNotSupported   = -32005
	CodeInvalidAgentResponse      = -32006
	CodeExtendedCardNotConfigured = -32007
	CodeExtensionSupportRequired  = -32008
	CodeVersionNotSupported       = -32009
	// CodeUnauthenticated and CodeUnauthorized have no spec code; these are
	// the ones a2a-go uses.
	CodeUnauthenticated = -31401
	CodeUnauthorized    = -31403
)

// Error is a protocol error: a JSON-RPC error object, or the google.rpc.Status
// body of the REST binding.
type Error struct {
	Code    int
	Message string
	// Data is free-form detail; v0.x codecs write it as error.data, the v1.0
	// codec adds it as ErrorInfo metadata.
	Data map[string]any
	// HTTPStatus overrides the status the REST binding would derive from Code.
	HTTPStatus int
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("a2a error %d: %s", e.Code, e.Message) }

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns e with key=value added to its Data.
func (e *Error) With(key string, value any) *Error {
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	e.Data[key] = value
	return e
}

// ErrTaskNotFound is the error for an unknown task id.
func ErrTaskNotFound(id string) *Error {
	return Errorf(CodeTaskNotFound, "task not found: %s", id).With("taskId", id)
}

// ErrInvalidParams names the offending field.
func ErrInvalidParams(field, problem string) *Error {
	return Errorf(CodeInvalidParams, "invalid params: %s: %s", field, problem).With("field", field)
}

// Reason is the ErrorInfo reason of the code (v1.0 §6.1), or "" for the
// generic JSON-RPC codes.
func Reason(code int) string {
	switch code {
	case CodeTaskNotFound:
		return "TASK_NOT_FOUND"
	case CodeTaskNotCancelable:
		return "TASK_NOT_CANCELABLE"
	case CodePushNotSupported:
		return "PUSH_NOTIFICATION_NOT_SUPPORTED"
	case CodeUnsupportedOperation:
		return "UNSUPPORTED_OPERATION"
	case CodeContentTypeNotSupported:
		return "CONTENT_TYPE_NOT_SUPPORTED"
	case CodeInvalidAgentResponse:
		return "INVALID_AGENT_RESPONSE"
	case CodeExtendedCardNotConfigured:
		return "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
	case CodeExtensionSupportRequired:
		return "EXTENSION_SUPPORT_REQUIRED"
	case CodeVersionNotSupported:
		return "VERSION_NOT_SUPPORTED"
	case CodeUnauthenticated:
		return "UNAUTHENTICATED"
	case CodeUnauthorized:
		return "PERMISSION_DENIED"
	}
	return ""
}

// Status returns the HTTP status the REST binding answers e with (v1.0.1
// table) and its google.rpc status name (for a status set by
// WithHTTPStatus, the name GRPCStatusName gives it).
func (e *Error) Status() (int, string) {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus, GRPCStatusName(e.HTTPStatus)
	}
	switch e.Code {
	case CodeTaskNotFound, CodeMethodNotFound:
		return httpstatus.NotFound, "NOT_FOUND"
	case CodeTaskNotCancelable, CodePushNotSupported, CodeUnsupportedOperation,
		CodeExtendedCardNotConfigured, CodeExtensionSupportRequired, CodeVersionNotSupported:
		return httpstatus.BadRequest, "FAILED_PRECONDITION"
	case CodeContentTypeNotSupported, CodeInvalidParams, CodeParseError, CodeInvalidRequest:
		return httpstatus.BadRequest, "INVALID_ARGUMENT"
	case CodeUnauthenticated:
		return httpstatus.Unauthorized, "UNAUTHENTICATED"
	case CodeUnauthorized:
		return httpstatus.Forbidden, "PERMISSION_DENIED"
	}
	return httpstatus.InternalServerError, "INTERNAL"
}

// WithHTTPStatus returns e with the HTTP status it must be answered with,
// whatever the binding would derive from its code.
func (e *Error) WithHTTPStatus(status int) *Error {
	e.HTTPStatus = status
	return e
}
