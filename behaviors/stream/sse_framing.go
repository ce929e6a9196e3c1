package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var sseFramingSpec = core.Spec{
	Name: "sse-framing",
	Doc: `Reproduces the ways real agents and proxies frame the same events on the
byte level. Every stream event keeps its JSON; only the framing changes.
'variant' takes one or several (a|b) of:
multiline-data (the JSON indented over several data: lines, which the SSE
spec joins with "\n"), event-field (an event: line named 'event' and an
id: line on every event), retry-field (a retry: line), comments (a
": keep-alive" comment before every event), crlf (CRLF line ends), split
(each event written in 'pieces' flushes 'gap' apart, cut at seeded byte
offsets, the first one inside the "data:" field name), lf-only (events
separated by a single "\n": non-compliant, the events run together into
one), no-trailing-blank (the last event of the stream lacks the blank line
that dispatches it before the connection closes). Applies to every
streaming operation (SendStreamingMessage, SubscribeToTask and their v0.x
names) on the HTTP bindings (JSON-RPC, HTTP+JSON) and every dialect; gRPC
streams have no SSE framing, so they are left alone. The first six are valid SSE
that a conforming reader must accept; the last two are broken framings
seen in the field that a robust client may reject but must not hang on.
Evidence: a2a-java#841 (each data: line dispatched as its own event),
gemini-cli#27587 (an A2A server emitting "\n" instead of "\n\n"),
k6-studio#1154 (a multi-line event lost at a chunk boundary),
a2a-samples#358 (event: lines break parsing), nansen-cli#618 (last event
without a trailing blank line dropped).`,
	New: func() core.Behavior {
		return &SSEFraming{Variants: []string{"multiline-data"}, Event: "message", Retry: 3000, Pieces: 3, Gap: 2 * time.Millisecond}
	},
}

// sseVariants are the framings SSEFraming knows.
var sseVariants = []string{"multiline-data", "event-field", "retry-field", "comments", "crlf", "split", "lf-only", "no-trailing-blank"}

// SSEFraming changes how the events of a stream are framed.
type SSEFraming struct {
	Variants []string      `param:"variant" doc:"one or more of multiline-data, event-field, retry-field, comments, crlf, split, lf-only, no-trailing-blank"`
	Event    string        `param:"event" doc:"the event: name of event-field"`
	Retry    int           `param:"retry" doc:"the retry: value (milliseconds) of retry-field"`
	Pieces   int           `param:"pieces" doc:"how many flushes split cuts each event into (at most one per byte of the event)"`
	Gap      time.Duration `param:"gap" doc:"pause between the pieces of split, so they travel as separate reads"`
}

// Validate implements Validator.
func (b *SSEFraming) Validate() error {
	for _, v := range b.Variants {
		if !slices.Contains(sseVariants, v) {
			return fmt.Errorf("variant %q is not one of %v", v, sseVariants)
		}
	}
	if b.Pieces < 2 {
		return fmt.Errorf("pieces must be 2 or more, not %d", b.Pieces)
	}
	if b.Gap < 0 || b.Retry < 0 {
		return fmt.Errorf("gap and retry must not be negative")
	}
	if b.Event == "" || bytes.ContainsAny([]byte(b.Event), "\r\n") {
		return fmt.Errorf("event must be a non-empty name without line breaks")
	}
	return nil
}

func (b *SSEFraming) has(v string) bool { return slices.Contains(b.Variants, v) }

// Apply implements Behavior.
func (b *SSEFraming) Apply(x *core.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	if x.Binding == wire.BindingGRPC {
		x.Declined()("gRPC streams are length-prefixed messages: there is no SSE framing to break")
		return
	}
	r := core.Rand(x)
	ctx, clk := x.Context(), core.ClockOf(x)
	n := 0
	x.OnStreamEvent(func(ev wire.Event, _ func(wire.Event) error, raw core.RawStream) error {
		frame, err := raw.Encode(ev)
		if err != nil {
			return err
		}
		n++
		st := ev.State()
		last := st.Terminal() || st.Interrupted()
		out := b.frame(sseData(frame), n, last)
		if !b.has("split") {
			return core.WriteLast(raw, out)
		}
		// The piece that completes the event is written with WriteLast, so
		// the stream journals the event before the client can read its end;
		// the pieces before it complete nothing and go out at once.
		pieces := core.SplitAt(out, core.CutPoints(r, len(out), bytes.Index(out, []byte("data:")), b.Pieces))
		for i, piece := range pieces {
			if i > 0 && !timeline.Sleep(ctx, clk, b.Gap) {
				return ctx.Err()
			}
			write := raw.WriteRaw
			if i == len(pieces)-1 {
				write = func(b []byte) error { return core.WriteLast(raw, b) }
			}
			if err := write(piece); err != nil {
				return err
			}
		}
		return nil
	})
}

// frame renders one event's data in the configured framing.
func (b *SSEFraming) frame(data []byte, n int, last bool) []byte {
	eol := []byte("\n")
	if b.has("crlf") {
		eol = []byte("\r\n")
	}
	var out []byte
	if b.has("comments") {
		out = append(append(append(out, ": keep-alive"...), eol...), eol...)
	}
	if b.has("event-field") {
		out = append(append(append(out, "id: "...), strconv.Itoa(n)...), eol...)
		out = append(append(append(out, "event: "...), b.Event...), eol...)
	}
	if b.has("retry-field") {
		out = append(append(append(out, "retry: "...), strconv.Itoa(b.Retry)...), eol...)
	}
	lines := [][]byte{data}
	if b.has("multiline-data") {
		var ind bytes.Buffer
		if json.Indent(&ind, data, "", "  ") == nil {
			lines = bytes.Split(ind.Bytes(), []byte("\n"))
		}
	}
	for _, l := range lines {
		out = append(append(append(out, "data: "...), l...), eol...)
	}
	switch {
	case last && b.has("no-trailing-blank"):
	case b.has("lf-only"):
	default:
		out = append(out, eol...)
	}
	return out
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
