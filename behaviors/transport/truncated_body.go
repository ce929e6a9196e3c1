package transport

import "github.com/a2amock/a2amock/behaviors/core"

var truncatedBodySpec = core.Spec{
	Name: "truncated-body",
	Doc: `Reproduces bodies cut short: a proxy timing out mid-response, an agent
process dying while writing, a load balancer draining. The status line and
headers go out as usual — Content-Length announces the whole body — then
only 'bytes' bytes of the body (half of it by default) are sent and the
connection is closed (a clean FIN, not a reset). On a stream the cut falls
in the stream's first event, inside an HTTP chunk. Card fetches are
affected only when the scope names them (op=agent-card). All bindings: on
gRPC the call ends after 'bytes' bytes of its (first) length-prefixed
message, with no trailers: a cut message. Tests that
a client checks the body against Content-Length (Go reports
io.ErrUnexpectedEOF) and does not parse the prefix it got.`,
	New: func() core.Behavior { return &TruncatedBody{Bytes: -1} },
}

// TruncatedBody sends fewer body bytes than Content-Length says.
type TruncatedBody struct {
	Bytes int `param:"bytes" doc:"body bytes sent before the connection closes; negative means half the body"`
}

// Apply implements Behavior.
func (b *TruncatedBody) Apply(x *core.Exchange) {
	x.OnTransport(func(t core.Transport) { t.Cut(b.Bytes, false) })
}
