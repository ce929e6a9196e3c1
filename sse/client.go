package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// maxErrorBody bounds how much of a non-stream reply NotAStreamError keeps.
const maxErrorBody = 1 << 20

// ErrClosed is yielded by [Stream.Events] when the stream was closed with
// [Stream.Close] while events were being read.
var ErrClosed = errors.New("sse: stream closed")

// NotAStreamError is returned by [Do] when the server answered with
// something other than text/event-stream. Servers commonly answer a
// streaming request they reject with a plain application/json JSON-RPC
// error; a client that only looks for events would see none and no error.
type NotAStreamError struct {
	// Status is the HTTP status code of the reply.
	Status int
	// ContentType is the reply's Content-Type header, verbatim.
	ContentType string
	// Body is the reply body (at most 1 MiB of it).
	Body []byte
}

// Error implements error.
func (e *NotAStreamError) Error() string {
	body := e.Body
	if len(body) > 200 {
		body = body[:200]
	}
	return fmt.Sprintf("sse: reply is not an event stream: status %d, Content-Type %q, body %q", e.Status, e.ContentType, body)
}

// Stream is an open event stream returned by [Do]. Its events are read with
// [Stream.Events]; [Stream.Close] must be called when done with it.
type Stream struct {
	resp      *http.Response
	ctx       context.Context
	cancel    context.CancelFunc
	stopLink  func() bool
	closeOnce sync.Once
	closed    atomic.Bool
}

// Do sends req with c (http.DefaultClient when nil) under ctx, which
// replaces req's own context for the exchange but is canceled as well when
// req's context ends. An Accept: text/event-stream header is added unless
// req has an Accept header. A reply whose Content-Type is not
// text/event-stream is read, closed and returned as a *NotAStreamError,
// whatever its status; otherwise the open stream is returned.
func Do(ctx context.Context, c *http.Client, req *http.Request) (*Stream, error) {
	if c == nil {
		c = http.DefaultClient
	}
	ctx, cancel := context.WithCancel(ctx)
	stopLink := context.AfterFunc(req.Context(), cancel)
	req = req.Clone(ctx)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := c.Do(req)
	if err != nil {
		stopLink()
		cancel()
		return nil, fmt.Errorf("sse: %w", err)
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr != nil || !strings.EqualFold(mt, "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close()
		stopLink()
		cancel()
		return nil, &NotAStreamError{Status: resp.StatusCode, ContentType: ct, Body: body}
	}
	return &Stream{resp: resp, ctx: ctx, cancel: cancel, stopLink: stopLink}, nil
}

// Response returns the HTTP response that carries the stream, for its
// status and headers. Its Body belongs to the Stream.
func (s *Stream) Response() *http.Response { return s.resp }

// Events yields the stream's events as [Read] does: it ends with a
// *TruncatedError if the stream stops mid-frame, with the context's error
// when the context passed to Do is canceled, and with ErrClosed after
// Close. A Stream's body can be read only once, so only one iteration
// yields events.
func (s *Stream) Events() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for ev, err := range Read(s.ctx, s.resp.Body) {
			if err != nil && s.closed.Load() {
				err = ErrClosed
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Close ends the stream: it cancels the request and closes the body, which
// also ends an iteration blocked in another goroutine. It is safe to call
// more than once and concurrently with Events.
func (s *Stream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.stopLink()
		s.cancel()
		err = s.resp.Body.Close()
	})
	return err
}
