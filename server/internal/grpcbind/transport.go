package grpcbind

import (
	"context"
	"encoding/binary"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/faultwriter"
	"github.com/a2amock/a2amock/wire"
)

// grpcTransport is the gRPC binding's behaviors.Transport: the faults of
// the transport behaviors in gRPC's terms (a trailers-only status,
// RST_STREAM, a cut message, a stream without trailers, DEADLINE_EXCEEDED).
// Each fault wraps the response writer of the call's HTTP/2 stream, whose
// writes are whole length-prefixed messages.
type grpcTransport struct {
	w        http.ResponseWriter
	ctx      context.Context
	h        binding.Host
	st       *grpcStream
	gone     bool
	answered *wire.Error
}

// newGRPCTransport is the Transport of the call st on w. The call's
// deadline is read here, off the hot path: a call no transport behavior
// acts on never needs it.
func newGRPCTransport(h binding.Host, w http.ResponseWriter, r *http.Request, st *grpcStream) *grpcTransport {
	if d, ok := grpcTimeout(r.Header.Get("Grpc-Timeout")); ok {
		st.deadline = h.Clock().Now().Add(d)
	}
	return &grpcTransport{w: w, ctx: r.Context(), h: h, st: st}
}

func (t *grpcTransport) Writer() http.ResponseWriter { return t.w }

func (t *grpcTransport) Stopped() (bool, *wire.Error) {
	return t.gone || t.answered != nil, t.answered
}

// Fail implements behaviors.Transport: a trailers-only answer with the
// gRPC code of the HTTP status.
func (t *grpcTransport) Fail(f behaviors.Failure) {
	code := grpcCodeOfHTTP(f.Status)
	msg := ""
	if code != codes.OK {
		msg = strings.TrimSpace(string(f.Body))
	}
	pushback := ""
	if ra, err := strconv.Atoi(f.Header.Get("Retry-After")); err == nil && ra >= 0 {
		pushback = strconv.Itoa(ra * 1000)
	}
	t.w = &grpcFailWriter{w: t.w, st: t.st, code: code, msg: msg, pushback: pushback, scratch: http.Header{}}
}

// Cut implements behaviors.Transport: RST_STREAM when reset (the cut
// writer aborts the handler, which net/http's HTTP/2 server answers with
// RST_STREAM), otherwise the end of the stream after n bytes, with no
// trailers.
func (t *grpcTransport) Cut(n int, reset bool) {
	st := t.st
	t.w = faultwriter.Cut(t.w, n, reset, func() { st.done = true })
}

// Delay implements behaviors.Transport, bounded by the call's deadline.
func (t *grpcTransport) Delay(p behaviors.Phase, d time.Duration) {
	if d <= 0 {
		return
	}
	if p == behaviors.PhaseStart {
		switch t.wait(t.ctx, d) {
		case waitGone:
			t.gone = true
		case waitDeadline:
			t.answered = deadlineError()
			rp := grpcReply{st: t.st}
			_ = rp.status(t.w, codes.DeadlineExceeded, t.answered.Message, nil)
		}
		return
	}
	t.w = &grpcBodyDelayWriter{ResponseWriter: t.w, t: t, d: d}
}

// Rewrite implements behaviors.Transport: the rewrites are of JSON bodies
// and HTTP headers, which a gRPC answer does not have.
func (t *grpcTransport) Rewrite(func(int, textproto.MIMEHeader, []byte) (int, []byte), func(textproto.MIMEHeader)) bool {
	return false
}

// Corrupt implements behaviors.Transport: the nth message does not decode.
func (t *grpcTransport) Corrupt(nth int, _ func([]byte) []byte) {
	t.w = &grpcCorruptWriter{ResponseWriter: t.w, nth: nth}
}

// HoldKeepAlives implements behaviors.Transport: gRPC streams send no
// keep-alive messages.
func (t *grpcTransport) HoldKeepAlives(func() bool) bool { return false }

type waitResult int

const (
	waitDone waitResult = iota
	waitGone
	waitDeadline
)

// wait waits d on the server's clock, or less: until the client leaves,
// the server closes or the call's deadline passes.
func (t *grpcTransport) wait(ctx context.Context, d time.Duration) waitResult {
	dl := t.st.deadline
	if !dl.IsZero() {
		if left := dl.Sub(t.h.Clock().Now()); left < d {
			if left > 0 && !t.h.Wait(ctx, left) {
				return waitGone
			}
			return waitDeadline
		}
	}
	if !t.h.Wait(ctx, d) {
		return waitGone
	}
	return waitDone
}

// deadlineError is how the journal records a call the transport ended at
// its deadline.
func deadlineError() *wire.Error {
	return &wire.Error{Message: "gRPC DEADLINE_EXCEEDED: the call's deadline (grpc-timeout) passed while the answer was held back"}
}

// grpcCodeOfHTTP is the gRPC code gRPC clients give an HTTP status
// (gRPC's http-grpc-status-mapping).
func grpcCodeOfHTTP(status int) codes.Code {
	switch {
	case status >= 200 && status < 300:
		return codes.OK
	case status == http.StatusBadRequest:
		return codes.Internal
	case status == http.StatusUnauthorized:
		return codes.Unauthenticated
	case status == http.StatusForbidden:
		return codes.PermissionDenied
	case status == http.StatusNotFound:
		return codes.Unimplemented
	case status == http.StatusTooManyRequests, status == http.StatusBadGateway,
		status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return codes.Unavailable
	}
	return codes.Unknown
}

// grpcTimeout parses a grpc-timeout header ("100m", "5S", ...); ok is false
// when there is none or it does not parse.
func grpcTimeout(v string) (time.Duration, bool) {
	if len(v) < 2 || len(v) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	var unit time.Duration
	switch v[len(v)-1] {
	case 'H':
		unit = time.Hour
	case 'M':
		unit = time.Minute
	case 'S':
		unit = time.Second
	case 'm':
		unit = time.Millisecond
	case 'u':
		unit = time.Microsecond
	case 'n':
		unit = time.Nanosecond
	default:
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// grpcFailWriter answers trailers-only with a fixed status the moment the
// server starts its own answer, and discards the server's.
type grpcFailWriter struct {
	w        http.ResponseWriter
	st       *grpcStream
	code     codes.Code
	msg      string
	pushback string
	scratch  http.Header
	sent     bool
}

// Header returns a scratch map: the server's headers must not leak into
// the replacement answer.
func (g *grpcFailWriter) Header() http.Header { return g.scratch }

func (g *grpcFailWriter) WriteHeader(int) { g.send() }

func (g *grpcFailWriter) Write([]byte) (int, error) {
	g.send()
	return 0, faultwriter.ErrReplaced
}

// FlushError sends nothing: a trailers-only answer is one HEADERS frame
// with END_STREAM, which net/http sends when the handler returns.
func (g *grpcFailWriter) FlushError() error {
	g.send()
	return nil
}

func (g *grpcFailWriter) send() {
	if g.sent {
		return
	}
	g.sent = true
	g.st.done = true
	h := g.w.Header()
	h.Set("Content-Type", "application/grpc")
	setGRPCStatus(h, "", g.code, g.msg, nil)
	if g.pushback != "" {
		h.Set("Grpc-Retry-Pushback-Ms", g.pushback)
	}
	g.w.WriteHeader(http.StatusOK)
}

// grpcBodyDelayWriter sends the response headers at once and holds the
// first message back; past the call's deadline it ends the call with
// DEADLINE_EXCEEDED in the trailers instead.
type grpcBodyDelayWriter struct {
	http.ResponseWriter
	t      *grpcTransport
	d      time.Duration
	waited bool
	cut    bool
}

func (w *grpcBodyDelayWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *grpcBodyDelayWriter) Write(b []byte) (int, error) {
	if w.cut {
		return 0, faultwriter.ErrCut
	}
	if !w.waited {
		w.waited = true
		switch w.t.wait(w.t.ctx, w.d) {
		case waitGone:
			w.cut = true
			return 0, context.Canceled
		case waitDeadline:
			w.cut = true
			w.t.st.deadlineHit = true
			return 0, faultwriter.ErrCut
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher below.
func (w *grpcBodyDelayWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// grpcCorruptWriter makes the nth message undecodable: it appends a field
// no protobuf decoder accepts (field number 0, wire type 7) and fixes the
// length prefix.
type grpcCorruptWriter struct {
	http.ResponseWriter
	nth, n int
}

func (w *grpcCorruptWriter) Write(b []byte) (int, error) {
	if len(b) >= 5 && b[0] == 0 && int(binary.BigEndian.Uint32(b[1:5])) == len(b)-5 {
		w.n++
		if w.nth == 0 || w.n == w.nth {
			bad := append(append(make([]byte, 0, len(b)+1), b...), 0x07)
			binary.BigEndian.PutUint32(bad[1:5], uint32(len(bad)-5))
			if _, err := w.ResponseWriter.Write(bad); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher below.
func (w *grpcCorruptWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
