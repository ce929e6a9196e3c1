package wire_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

// wire numbers HTTP statuses itself (it must not import net/http); this
// checks its numbers against net/http's through the names it gives them.
func TestGRPCStatusNameUsesHTTPStatusNumbers(t *testing.T) {
	for status, want := range map[int]string{
		http.StatusBadRequest:            "INVALID_ARGUMENT",
		http.StatusUnauthorized:          "UNAUTHENTICATED",
		http.StatusForbidden:             "PERMISSION_DENIED",
		http.StatusNotFound:              "NOT_FOUND",
		http.StatusMethodNotAllowed:      "UNIMPLEMENTED",
		http.StatusConflict:              "ABORTED",
		http.StatusPreconditionFailed:    "FAILED_PRECONDITION",
		http.StatusRequestEntityTooLarge: "RESOURCE_EXHAUSTED",
		http.StatusUnsupportedMediaType:  "INVALID_ARGUMENT",
		http.StatusTooManyRequests:       "RESOURCE_EXHAUSTED",
		499:                              "CANCELLED",
		http.StatusInternalServerError:   "INTERNAL",
		http.StatusNotImplemented:        "UNIMPLEMENTED",
		http.StatusServiceUnavailable:    "UNAVAILABLE",
		http.StatusGatewayTimeout:        "DEADLINE_EXCEEDED",
		http.StatusBadGateway:            "INTERNAL",
		http.StatusTeapot:                "UNKNOWN",
	} {
		assert.Equal(t, want, wire.GRPCStatusName(status), "HTTP %d", status)
	}
}

func TestErrorStatus(t *testing.T) {
	for _, c := range []struct {
		err        *wire.Error
		wantStatus int
		wantName   string
	}{
		{wire.ErrTaskNotFound("t-1"), http.StatusNotFound, "NOT_FOUND"},
		{wire.Errorf(wire.CodeTaskNotCancelable, "no"), http.StatusBadRequest, "FAILED_PRECONDITION"},
		{wire.ErrInvalidParams("message", "is missing"), http.StatusBadRequest, "INVALID_ARGUMENT"},
		{wire.Errorf(wire.CodeUnauthenticated, "who"), http.StatusUnauthorized, "UNAUTHENTICATED"},
		{wire.Errorf(wire.CodeUnauthorized, "no"), http.StatusForbidden, "PERMISSION_DENIED"},
		{wire.Errorf(wire.CodeInternal, "boom"), http.StatusInternalServerError, "INTERNAL"},
		// An overridden status is named by its google.rpc code, as the
		// HTTP+JSON error body names it.
		{wire.Errorf(wire.CodeInvalidRequest, "GET only").WithHTTPStatus(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed, "UNIMPLEMENTED"},
	} {
		status, name := c.err.Status()
		assert.Equal(t, c.wantStatus, status, c.err.Message)
		assert.Equal(t, c.wantName, name, c.err.Message)
	}
}
