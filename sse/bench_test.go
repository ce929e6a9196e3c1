package sse

import (
	"net/http"
	"testing"
)

// discardFlusher is a ResponseWriter that drops the body and can flush,
// so the benchmark measures framing and not I/O.
type discardFlusher struct{ h http.Header }

func (d *discardFlusher) Header() http.Header         { return d.h }
func (d *discardFlusher) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardFlusher) WriteHeader(int)             {}
func (d *discardFlusher) Flush()                      {}

func BenchmarkWriterEvent(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"working","timestamp":"2026-01-01T00:00:00Z"},"final":false}}`)
	for _, bc := range []struct {
		name string
		w    func(*Writer)
	}{
		{"default", func(*Writer) {}},
		{"crlf", func(w *Writer) { w.CRLF = true }},
		{"multiline", func(w *Writer) { w.MultilineData = true }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := NewWriter(&discardFlusher{h: http.Header{}})
			bc.w(w)
			ev := Event{ID: "42", Name: "status-update", Data: data}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := w.Event(ev); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
