package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// Event is one Server-Sent Event.
//
// When written, an empty ID or Name omits the id: or event: line. When read,
// ID is the last event ID seen on the stream so far, as EventSource reports
// it (the value a reconnecting client sends as Last-Event-ID), so it may
// come from an earlier event; Data lines are joined with "\n".
type Event struct {
	ID   string
	Name string
	Data []byte
}

// ErrInvalidEvent is returned (wrapped) when an Event cannot be framed
// because its ID or Name contains a line break, which would split the field
// and corrupt the stream. Use [Writer.WriteRaw] to send such bytes on purpose.
var ErrInvalidEvent = errors.New("sse: invalid event")

// Writer frames events onto an HTTP response and flushes after every write,
// so each event reaches the client as soon as it is written.
//
// A Writer is not safe for concurrent use: frames written from several
// goroutines could interleave. Serialize calls, e.g. with one goroutine per
// stream. [Writer.Bytes] alone may be called concurrently.
//
// After a write or flush fails (typically because the client has gone) the
// Writer keeps returning that error, so a handler can stop at the first
// failure without checking the request context.
type Writer struct {
	// CRLF makes every line end in "\r\n" instead of "\n". Some clients only
	// handle one of the two; the spec allows both.
	CRLF bool
	// MultilineData re-indents JSON data with two-space indentation so that
	// it spans several data: lines, which clients must join with "\n". Data
	// that is not valid JSON is written as it is.
	MultilineData bool
	// OmitIDs drops id: lines even for events that carry an ID.
	OmitIDs bool

	rw      http.ResponseWriter
	rc      *http.ResponseController
	started bool
	err     error
	n       atomic.Int64
	buf     []byte
	indent  bytes.Buffer
}

// NewWriter returns a Writer on w. w must support flushing, either directly
// (http.Flusher) or through an Unwrap() http.ResponseWriter chain as echo's
// response does; otherwise every write reports an error wrapping
// http.ErrNotSupported.
func NewWriter(w http.ResponseWriter) *Writer {
	return &Writer{rw: w, rc: http.NewResponseController(w)}
}

// Bytes reports how many body bytes the underlying ResponseWriter has
// accepted so far. It is safe to call from any goroutine.
func (w *Writer) Bytes() int64 { return w.n.Load() }

// WriteHeader sends the SSE response headers and status 200 and flushes
// them, so the client sees the stream open before the first event. Headers
// the handler set beforehand are kept, which lets a fault send, say, a
// different Content-Type. Only the first call has an effect; the event
// methods call it implicitly.
func (w *Writer) WriteHeader() error {
	if w.started {
		return w.err
	}
	w.started = true
	h := w.rw.Header()
	setDefault(h, "Content-Type", "text/event-stream")
	setDefault(h, "Cache-Control", "no-cache")
	setDefault(h, "Connection", "keep-alive")
	// Stops nginx-style proxies from buffering the whole stream.
	setDefault(h, "X-Accel-Buffering", "no")
	w.rw.WriteHeader(http.StatusOK)
	w.flush()
	return w.err
}

func setDefault(h http.Header, k, v string) {
	if h.Get(k) == "" {
		h.Set(k, v)
	}
}

// Event writes e as one frame: optional id: and event: lines, the data as
// one data: line per line of e.Data, then a blank line; then flushes.
func (w *Writer) Event(e Event) error {
	frame, err := w.appendEvent(w.buf[:0], e)
	if err != nil {
		return err
	}
	w.buf = frame
	return w.write(frame)
}

// Last writes e as [Writer.Event] does but does not flush: it is for the
// event after which the handler writes nothing more and returns, when
// net/http sends what is buffered with the response's end. Whatever the
// server does between the write and its return (journal the event and the
// stream's end, a recorder in front of it noting the exchange's end) then
// happens before the client can read the event, so a client that exits
// on it cannot leave the record of its stream unfinished in one run and
// finished in the next. A handler that writes on calls [Writer.Flush]
// once it noted the event, so that it is noted before it can be read.
func (w *Writer) Last(e Event) error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	frame, err := w.appendEvent(w.buf[:0], e)
	if err != nil {
		return err
	}
	w.buf = frame
	return w.put(frame)
}

// Frame returns the bytes [Writer.Event] would write for e with the
// Writer's current options, e.g. to choose a cut point for
// [Writer.Truncate]. The result is freshly allocated.
func (w *Writer) Frame(e Event) ([]byte, error) {
	return w.appendEvent(nil, e)
}

// Truncate writes only the first n bytes of the frame for e and flushes, so
// that the client sees an event cut mid-way (typically followed by closing
// the stream). n is clamped to [0, len(frame)].
func (w *Writer) Truncate(e Event, n int) error {
	frame, err := w.appendEvent(w.buf[:0], e)
	if err != nil {
		return err
	}
	w.buf = frame
	n = max(0, min(n, len(frame)))
	return w.write(frame[:n])
}

// Comment writes a comment frame (": text" and a blank line). Clients must
// ignore comments; a text with line breaks becomes several comment lines.
func (w *Writer) Comment(text string) error {
	b := w.buf[:0]
	for line := range splitLines(text) {
		b = append(b, ':')
		if len(line) > 0 {
			b = append(b, ' ')
			b = append(b, line...)
		}
		b = w.eol(b)
	}
	b = w.eol(b)
	w.buf = b
	return w.write(b)
}

// KeepAlive writes the ": keep-alive" comment that keeps idle streams from
// being closed by proxies and client timeouts.
func (w *Writer) KeepAlive() error { return w.Comment("keep-alive") }

// WriteRaw writes exactly b, unframed, and flushes. It exists for faults
// that need malformed or partial bytes on the wire.
func (w *Writer) WriteRaw(b []byte) error { return w.write(b) }

// Put writes exactly b, unframed, as [Writer.WriteRaw] does, but does not
// flush: b stays in the response's buffer until [Writer.Flush], the next
// flushing write, or the response's end. A server can so note what b
// carries (journal it) between writing b, which tells whether the
// response still takes bytes, and the client being able to read it. Only
// what fits the response's buffer is held back (net/http's: about 2 KiB,
// then 4 KiB on the connection); more reaches the client at once.
func (w *Writer) Put(b []byte) error { return w.put(b) }

// Flush sends what [Writer.Put] left in the response's buffer; a failure
// is the Writer's sticky error, as for a flushing write.
func (w *Writer) Flush() error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	w.flush()
	return w.err
}

func (w *Writer) write(b []byte) error {
	if err := w.put(b); err != nil {
		return err
	}
	w.flush()
	return w.err
}

// put writes b after the header, without a flush; a write failure is the
// Writer's sticky error.
func (w *Writer) put(b []byte) error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	if len(b) > 0 {
		n, err := w.rw.Write(b)
		w.n.Add(int64(n))
		if err != nil {
			w.err = fmt.Errorf("sse: write: %w", err)
		}
	}
	return w.err
}

// flush records a flush failure as the Writer's sticky error. echo's
// Response.Flush panics when the writer below it cannot flush; that is
// turned into an error because a misconfigured server must not crash.
func (w *Writer) flush() {
	defer func() {
		if r := recover(); r != nil {
			w.err = fmt.Errorf("sse: flush: %v: %w", r, http.ErrNotSupported)
		}
	}()
	if err := w.rc.Flush(); err != nil {
		w.err = fmt.Errorf("sse: flush: %w", err)
	}
}

func (w *Writer) eol(b []byte) []byte {
	if w.CRLF {
		return append(b, '\r', '\n')
	}
	return append(b, '\n')
}

func (w *Writer) appendEvent(b []byte, e Event) ([]byte, error) {
	if strings.ContainsAny(e.ID, "\r\n\x00") {
		return nil, fmt.Errorf("%w: id %q contains a line break or NUL", ErrInvalidEvent, e.ID)
	}
	if strings.ContainsAny(e.Name, "\r\n") {
		return nil, fmt.Errorf("%w: event name %q contains a line break", ErrInvalidEvent, e.Name)
	}
	if e.ID != "" && !w.OmitIDs {
		b = append(b, "id: "...)
		b = append(b, e.ID...)
		b = w.eol(b)
	}
	if e.Name != "" {
		b = append(b, "event: "...)
		b = append(b, e.Name...)
		b = w.eol(b)
	}
	data := e.Data
	if w.MultilineData {
		w.indent.Reset()
		if json.Indent(&w.indent, data, "", "  ") == nil {
			data = w.indent.Bytes()
		}
	}
	for line := range splitLines(data) {
		b = append(b, "data:"...)
		if len(line) > 0 {
			b = append(b, ' ')
			b = append(b, line...)
		}
		b = w.eol(b)
	}
	return w.eol(b), nil
}

// splitLines yields the lines of s split at "\r\n", "\r" and "\n" (the three
// SSE line endings, none of which may appear inside a field value). An empty
// s yields one empty line so that an event always has a data: line. It is
// generic so that event data is split without copying it into a string.
func splitLines[T ~string | ~[]byte](s T) func(func(T) bool) {
	return func(yield func(T) bool) {
		start := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c != '\r' && c != '\n' {
				continue
			}
			if !yield(s[start:i]) {
				return
			}
			if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
		yield(s[start:])
	}
}
