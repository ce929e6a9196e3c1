package stream

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var bufferedBurstSpec = core.Spec{
	Name: "buffered-burst",
	Doc: `Reproduces a buffering proxy (nginx with proxy_buffering on, a gzip
middleware) in front of a streaming agent: the stream opens at once, but
its events are held back and reach the client together, in one write,
when the stream's last event (terminal, or input-required/auth-required)
is produced; the keep-alive comments the agent writes meanwhile are
swallowed by the buffer. The events themselves are unchanged. Every
streaming operation, every binding and dialect (gRPC streams have no
keep-alives to swallow). Tests that a client
does not depend on seeing progress while a task runs (no UI stuck on
"submitted", no timeout that assumes the first event arrives early) and
reads a burst of several events from one chunk correctly. Evidence:
xagent#1358 (events delivered all at once behind a proxy), CopilotKit#6980.`,
	New: func() core.Behavior { return &BufferedBurst{} },
}

// BufferedBurst holds a stream's events back until its last one.
type BufferedBurst struct{}

// Apply implements Behavior.
func (b *BufferedBurst) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	var held []byte
	holding := true
	x.OnTransport(func(t core.Transport) { t.HoldKeepAlives(func() bool { return holding }) })
	x.OnStreamEvent(func(ev wire.Event, _ func(wire.Event) error, raw core.RawStream) error {
		frame, err := raw.Encode(ev)
		if err != nil {
			return err
		}
		held = append(held, frame...)
		if st := ev.State(); !st.Terminal() && !st.Interrupted() {
			return nil
		}
		holding = false
		out := held
		held = nil
		// The burst is journaled before it leaves (core.WriteLast): a
		// client that exits on its last event finds every event of it in
		// the journal.
		return core.WriteLast(raw, out)
	})
}
