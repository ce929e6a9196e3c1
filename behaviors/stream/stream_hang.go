package stream

import "github.com/a2amock/a2amock/behaviors/core"

var streamHangSpec = core.Spec{
	Name: "stream-hang",
	Doc: `Reproduces agents (and proxies in front of them) that send the terminal
event but never close the stream: the connection stays open, fed with SSE
keep-alive comments, until the client goes away. Tests that a client ends
its read loop on the terminal (or final) event instead of waiting for the
end of the stream, and that it closes the connection itself; a client that
waits for EOF hangs for ever. All bindings: on gRPC the call sends its
last message and never its trailers (no grpc-status), with the HTTP/2
stream left open until the client cancels.`,
	New: func() core.Behavior { return &StreamHang{} },
}

// StreamHang holds streams open after their last event.
type StreamHang struct{}

// Apply implements Behavior.
func (b *StreamHang) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	x.OnStreamEnd(func(core.RawStream) bool { return true })
}
