package server

import (
	"context"
	"net/http"
	"net/textproto"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/faultwriter"
	"github.com/a2amock/a2amock/wire"
)

// httpTransport is the HTTP bindings' Transport (JSON-RPC, HTTP+JSON and
// card fetches): each fault wraps the response writer.
type httpTransport struct {
	w    http.ResponseWriter
	ctx  context.Context
	h    binding.Host
	gone bool
}

func newHTTPTransport(h binding.Host, w http.ResponseWriter, r *http.Request) *httpTransport {
	return &httpTransport{w: w, ctx: r.Context(), h: h}
}

func (t *httpTransport) Writer() http.ResponseWriter { return t.w }

func (t *httpTransport) Stopped() (bool, *wire.Error) { return t.gone, nil }

// Fail implements behaviors.Transport.
func (t *httpTransport) Fail(f behaviors.Failure) {
	t.w = faultwriter.Replace(t.w, f.Status, http.Header(f.Header), f.Body)
}

// Cut implements behaviors.Transport.
func (t *httpTransport) Cut(n int, reset bool) {
	t.w = faultwriter.Cut(t.w, n, reset, nil)
}

// Delay implements behaviors.Transport.
func (t *httpTransport) Delay(p behaviors.Phase, d time.Duration) {
	if d <= 0 {
		return
	}
	if p == behaviors.PhaseStart {
		if !t.h.Wait(t.ctx, d) {
			t.gone = true
		}
		return
	}
	t.w = faultwriter.BodyDelay(t.w, d, t.ctx, t.h.Clock())
}

// Rewrite implements behaviors.Transport.
func (t *httpTransport) Rewrite(unary func(int, textproto.MIMEHeader, []byte) (int, []byte), stream func(textproto.MIMEHeader)) bool {
	var u func(int, http.Header, []byte) (int, []byte)
	var st func(http.Header)
	if unary != nil {
		u = func(status int, h http.Header, body []byte) (int, []byte) {
			return unary(status, textproto.MIMEHeader(h), body)
		}
	}
	if stream != nil {
		st = func(h http.Header) { stream(textproto.MIMEHeader(h)) }
	}
	t.w = faultwriter.Rewrite(t.w, u, st)
	return true
}

// Corrupt implements behaviors.Transport.
func (t *httpTransport) Corrupt(nth int, f func([]byte) []byte) {
	t.w = faultwriter.Corrupt(t.w, nth, f)
}

// HoldKeepAlives implements behaviors.Transport.
func (t *httpTransport) HoldKeepAlives(hold func() bool) bool {
	t.w = faultwriter.DropComments(t.w, hold)
	return true
}
