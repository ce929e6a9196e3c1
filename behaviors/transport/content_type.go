package transport

import (
	"bytes"
	"fmt"
	"mime"
	"net/textproto"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var contentTypeSpec = core.Spec{
	Name: "content-type",
	Doc: `Reproduces agents whose answers carry the wrong media type: text/plain
from a framework default, application/json where the client asked for (and
v1.0.1 names) application/a2a+json, or the reverse. Unary answers of both
bindings and every dialect get 'type' instead of their Content-Type; the
body is unchanged. Streaming answers keep text/event-stream unless
'stream' says otherwise: stream=type sends the same event stream under
'type', stream=json answers with no events at all but one JSON body (the
last event's JSON-RPC envelope, or its bare StreamResponse over HTTP+JSON)
under 'type', as an agent that does not really stream would. Card fetches
are affected only when the scope names them (op=agent-card). HTTP bindings
only: gRPC answers are left alone. Tests that a
client either accepts any JSON media type or reports the mismatch, and never
reads an event stream that is not one (or drops a JSON body) silently.
Evidence: a2a-go#264 and adk-go#631 (text/plain made Microsoft Copilot
reject the reply), a2a-js#429.`,
	New: func() core.Behavior { return &ContentType{Type: "text/plain; charset=utf-8", Stream: "keep"} },
}

// ContentType changes the media type of answers.
type ContentType struct {
	Type   string `param:"type" doc:"the Content-Type sent instead, e.g. text/plain, application/json, application/a2a+json"`
	Stream string `param:"stream" doc:"streams: keep (text/event-stream), type (events under 'type') or json (one JSON body under 'type')"`
}

// Validate implements Validator.
func (b *ContentType) Validate() error {
	if _, _, err := mime.ParseMediaType(b.Type); err != nil {
		return fmt.Errorf("type %q is not a media type: %v", b.Type, err)
	}
	if !slices.Contains([]string{"keep", "type", "json"}, b.Stream) {
		return fmt.Errorf("stream must be keep, type or json, not %q", b.Stream)
	}
	return nil
}

// Apply implements Behavior.
func (b *ContentType) Apply(x *core.Exchange) {
	unary := func(status int, h textproto.MIMEHeader, body []byte) (int, []byte) {
		h.Set("Content-Type", b.Type)
		return status, body
	}
	var stream func(h textproto.MIMEHeader)
	if x.Op.Streaming() && b.Stream != "keep" {
		stream = func(h textproto.MIMEHeader) { h.Set("Content-Type", b.Type) }
	}
	declined := x.Declined()
	oneBody := x.Op.Streaming() && b.Stream == "json"
	x.OnTransport(func(t core.Transport) {
		if !t.Rewrite(unary, stream) {
			declined("the binding has no Content-Type to change")
			return
		}
		if oneBody {
			// The one JSON body has no room for the SSE comments the
			// stream writes while it waits for the last event.
			t.HoldKeepAlives(func() bool { return true })
		}
	})
	if !oneBody {
		return
	}
	x.OnStreamEvent(func(ev wire.Event, _ func(wire.Event) error, raw core.RawStream) error {
		st := ev.State()
		if !st.Terminal() && !st.Interrupted() {
			return nil
		}
		frame, err := raw.Encode(ev)
		if err != nil {
			return err
		}
		// Left to the answer's end (core.WriteLast), after the stream
		// journaled the event and its end, as a JSON answer would be.
		err = core.WriteLast(raw, sseData(frame))
		raw.Close()
		return err
	})
}

// sseData is the data of a frame the stream's writer rendered: its data:
// lines joined with "\n".
func sseData(frame []byte) []byte {
	var data [][]byte
	for _, l := range bytes.Split(bytes.TrimRight(frame, "\r\n"), []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if v, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	return bytes.Join(data, []byte("\n"))
}
