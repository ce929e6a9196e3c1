package a2a_test

import (
	"testing"

	"github.com/a2amock/a2amock/a2a"
)

// The v0.x codecs share helpers with each other and with v1.0; these
// benchmarks, beside the v1.0 ones, show whether a shared helper costs a
// dialect anything.

func benchDecodeSend(b *testing.B, d a2a.Dialect, params string) {
	c := a2a.CodecFor(d)
	raw := []byte(params)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := c.DecodeParams(a2a.OpSend, raw); e != nil {
			b.Fatal(e)
		}
	}
}

func benchEncodeTask(b *testing.B, d a2a.Dialect, task *a2a.Task) {
	c := a2a.CodecFor(d)
	res := &a2a.Result{Task: task}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(a2a.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDecodeTask decodes what the codec's own EncodePush writes for task.
func benchDecodeTask(b *testing.B, d a2a.Dialect, task *a2a.Task) {
	c := a2a.CodecFor(d)
	doc, err := c.EncodePush(a2a.Event{Task: task})
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
	benchDecodeSend(b, a2a.V03, `{"message":{"kind":"message","messageId":"9f1c","role":"user","contextId":"ctx","parts":[{"kind":"text","text":"hello there"},{"kind":"data","data":{"a":1,"b":[true,null]}},{"kind":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":10,"blocking":true}}`)
}

func BenchmarkV03EncodeTask(b *testing.B) { benchEncodeTask(b, a2a.V03, v03Task()) }

func BenchmarkV03DecodeEventTask(b *testing.B) { benchDecodeTask(b, a2a.V03, v03Task()) }

func BenchmarkV01DecodeSend(b *testing.B) {
	benchDecodeSend(b, a2a.V01, `{"id":"t-1","sessionId":"s-1","message":{"role":"user","parts":[{"type":"text","text":"hello there"},{"type":"data","data":{"a":1,"b":[true,null]}},{"type":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"historyLength":10}`)
}

func BenchmarkV01EncodeTask(b *testing.B) { benchEncodeTask(b, a2a.V01, v01Task()) }

func BenchmarkV01DecodeEventTask(b *testing.B) { benchDecodeTask(b, a2a.V01, v01Task()) }
