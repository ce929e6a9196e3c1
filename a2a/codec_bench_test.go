package a2a_test

import (
	"testing"

	"github.com/a2amock/a2amock/a2a"
)

// The v0.x codecs share helpers with each other and with v1.0; these
// benchmarks, beside the v1.0 ones, show whether a shared helper costs a
// dialect anything.

func BenchmarkV03DecodeSend(b *testing.B) {
	c := a2a.CodecFor(a2a.V03)
	params := []byte(`{"message":{"kind":"message","messageId":"9f1c","role":"user","contextId":"ctx","parts":[{"kind":"text","text":"hello there"},{"kind":"data","data":{"a":1,"b":[true,null]}},{"kind":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":10,"blocking":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := c.DecodeParams(a2a.OpSend, params); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkV03EncodeTask(b *testing.B) {
	c := a2a.CodecFor(a2a.V03)
	res := &a2a.Result{Task: v03Task()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(a2a.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkV03DecodeEventTask(b *testing.B) {
	c := a2a.CodecFor(a2a.V03)
	doc, err := c.EncodeEvent(a2a.Event{Task: v03Task()})
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

func BenchmarkV01DecodeSend(b *testing.B) {
	c := a2a.CodecFor(a2a.V01)
	params := []byte(`{"id":"t-1","sessionId":"s-1","message":{"role":"user","parts":[{"type":"text","text":"hello there"},{"type":"data","data":{"a":1,"b":[true,null]}},{"type":"file","file":{"bytes":"AAFiaW5hcnk=","mimeType":"application/octet-stream"}}]},"historyLength":10}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := c.DecodeParams(a2a.OpSend, params); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkV01EncodeTask(b *testing.B) {
	c := a2a.CodecFor(a2a.V01)
	res := &a2a.Result{Task: v01Task()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EncodeResult(a2a.OpSend, res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkV01DecodeEventTask(b *testing.B) {
	c := a2a.CodecFor(a2a.V01)
	doc, err := c.EncodePush(a2a.Event{Task: v01Task()})
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
