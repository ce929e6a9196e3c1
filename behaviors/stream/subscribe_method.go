package stream

import (
	"fmt"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var subscribeMethodSpec = core.Spec{
	Name: "subscribe-method",
	Doc: `Reproduces the HTTP+JSON SubscribeToTask dispute: the v1.0 spec text says
POST /tasks/{id}:subscribe, the proto's HTTP annotation says GET
(A2A#1574), and older servers only know the pre-1.0 /tasks/{id}/subscribe.
The honest mock serves both methods at :subscribe. serve=get answers a POST
with 405 (Allow: GET), serve=post answers a GET with 405 (Allow: POST),
serve=legacy serves only /tasks/{id}/subscribe (either method) and answers
:subscribe with 404. HTTP+JSON binding only, v1.0's and v0.3's (where the
paths are below /v1: serve=legacy serves /v1/tasks/{id}/subscribe). Tests
that a client
reports the refusal clearly (and, ideally, tries the other method) instead
of hanging or treating the error body as an event stream. Evidence:
a2a-go#380, a2a-js#569, a2a-python#843.`,
	New: func() core.Behavior { return &SubscribeMethod{Serve: "get"} },
}

// SubscribeMethod restricts how HTTP+JSON SubscribeToTask is served.
type SubscribeMethod struct {
	Serve string `param:"serve" doc:"get, post or legacy"`
}

// Validate implements Validator.
func (b *SubscribeMethod) Validate() error {
	if !slices.Contains([]string{"get", "post", "legacy"}, b.Serve) {
		return fmt.Errorf("serve must be get, post or legacy, not %q", b.Serve)
	}
	return nil
}

// Apply implements Behavior.
func (b *SubscribeMethod) Apply(x *core.Exchange) {
	if x.Op != wire.OpSubscribe || x.Binding != wire.BindingREST || x.Request == nil || x.HTTP == nil {
		return
	}
	legacy := strings.HasSuffix(x.Request.Method, "/tasks/{id}/subscribe")
	method := x.HTTP.Method()
	switch b.Serve {
	case "legacy":
		if legacy {
			x.ServeLegacySubscribe()
			return
		}
		x.RejectWith(wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s", method, x.HTTP.Path()).WithHTTPStatus(http.StatusNotFound))
	case "get", "post":
		allow := strings.ToUpper(b.Serve)
		if legacy || method == allow {
			return
		}
		x.RejectWith(wire.Errorf(wire.CodeMethodNotFound, "%s is not allowed on %s (allowed: %s)", method, x.HTTP.Path(), allow).WithHTTPStatus(http.StatusMethodNotAllowed))
		x.OnTransport(func(t core.Transport) {
			t.Rewrite(func(status int, h textproto.MIMEHeader, body []byte) (int, []byte) {
				h.Set("Allow", allow)
				return status, body
			}, nil)
		})
	}
}
