package transport

import (
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"
)

var connectionResetSpec = core.Spec{
	Name: "connection-reset",
	Doc: `Reproduces connections reset by the peer: a crashed agent process, a
killed pod, a proxy or NAT dropping state. When the answer would start, the
server takes the TCP connection over and closes it with SO_LINGER 0, so the
client gets a TCP RST ("connection reset by peer"); with after=N the status
line, headers and the first N body bytes go out first (the client may or
may not see them: a reset can discard data not yet read). The agent has
already handled the request. Card fetches are affected only when the scope
names them (op=agent-card). All bindings: on gRPC the call's HTTP/2
stream is reset (RST_STREAM; with after=N, after the response headers and
N bytes of the message), the connection stays up. Tests that a
client surfaces a reset as a transport error, does not blindly resend a
non-idempotent SendMessage, and frees the connection.`,
	New: func() core.Behavior { return &ConnectionReset{} },
}

// ConnectionReset resets the TCP connection instead of answering.
type ConnectionReset struct {
	After int `param:"after" doc:"body bytes sent before the reset; 0 resets before the status line"`
}

// Validate implements Validator.
func (b *ConnectionReset) Validate() error {
	if b.After < 0 {
		return fmt.Errorf("after must be 0 or more, not %d", b.After)
	}
	return nil
}

// Apply implements Behavior.
func (b *ConnectionReset) Apply(x *core.Exchange) {
	x.OnTransport(func(t core.Transport) { t.Cut(b.After, true) })
}
