package transport

import (
	"fmt"
	"net/http"
	"net/textproto"

	"github.com/a2amock/a2amock/behaviors/core"
)

var emptyResponseSpec = core.Spec{
	Name: "empty-response",
	Doc: `Reproduces answers that arrive with no body: a proxy that drops it, an
agent framework that returns before writing, a handler that panicked after
the status. The agent handles the request as usual (a task may be created),
but the client gets 'status' (200 by default) with Content-Length: 0 and
the given Content-Type. Card fetches are affected only when the scope names
them (op=agent-card). All bindings: on gRPC the answer is trailers-only,
with no message: grpc-status OK for a 2xx status (a unary call without its
response message), otherwise the gRPC code of the status. Tests that a client
reports an empty body as an error rather than as a null result or an empty
stream, and that it does not resend a message whose task may exist.`,
	New: func() core.Behavior { return &EmptyResponse{Status: http.StatusOK, ContentType: "application/json"} },
}

// EmptyResponse answers with an empty body.
type EmptyResponse struct {
	Status      int    `param:"status" doc:"the HTTP status of the empty answer"`
	ContentType string `param:"content-type" doc:"the Content-Type of the empty answer"`
}

// Validate implements Validator.
func (b *EmptyResponse) Validate() error {
	if b.Status < 200 || b.Status > 599 || b.Status == http.StatusNoContent {
		return fmt.Errorf("status %d: use a status that may carry a body (200-599, not 204)", b.Status)
	}
	return nil
}

// Apply implements Behavior.
func (b *EmptyResponse) Apply(x *core.Exchange) {
	h := textproto.MIMEHeader{"Content-Type": {b.ContentType}}
	x.OnTransport(func(t core.Transport) { t.Fail(core.Failure{Status: b.Status, Header: h}) })
}
