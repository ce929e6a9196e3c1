package wire_test

import (
	"testing"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// The v0.x codecs share helpers with each other and with v1.0; these
// benchmarks, beside the v1.0 ones, show whether a shared helper costs a
// dialect anything.

func benchDecodeSend(b *testing.B, d wire.Dialect, params string) {
	c := codecs.For(d)
	raw := []byte(params)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := c.DecodeParams(wire.OpSend, raw); e != nil {
			b.Fatal(e)
		}
	}
}

func benchEncodeTask(b *testing.B, d wire.Dialect, task *wire.Task) {
	c := codecs.For(d)
	res := &wire.Result{Task: task}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(wire.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDecodeTask decodes what the codec's own EncodePush writes for task.
func benchDecodeTask(b *testing.B, d wire.Dialect, task *wire.Task) {
	c := codecs.For(d)
	doc, err := c.EncodePush(wire.Event{Task: task})
	if err != nil {
		b.Fatal(err)
	}
	dec := c.(eventDecoder)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dec.DecodeEvent(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkV03DecodeSend(b *testing.B) {
	benchDecodeSend(b, wire.V03, `{"message":{"kind":"message","messageId":"9f1c","role":"user","contextId":"ctx","parts":[{"kind":"text","text":"hello there"},{"kind":"data","data":{"a":1,"b":[true,null]}},{"kind":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":10,"blocking":true}}`)
}

func BenchmarkV03EncodeTask(b *testing.B) { benchEncodeTask(b, wire.V03, v03Task()) }

func BenchmarkV03DecodeEventTask(b *testing.B) { benchDecodeTask(b, wire.V03, v03Task()) }

func BenchmarkV01DecodeSend(b *testing.B) {
	benchDecodeSend(b, wire.V01, `{"id":"t-1","sessionId":"s-1","message":{"role":"user","parts":[{"type":"text","text":"hello there"},{"type":"data","data":{"a":1,"b":[true,null]}},{"type":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"historyLength":10}`)
}

func BenchmarkV01EncodeTask(b *testing.B) { benchEncodeTask(b, wire.V01, v01Task()) }

func BenchmarkV01DecodeEventTask(b *testing.B) { benchDecodeTask(b, wire.V01, v01Task()) }
