package sse

import (
	"context"
	"fmt"
	"io"
	"iter"

	gosse "github.com/tmaxmax/go-sse"
)

// MaxEventSize is the largest encoded event Read accepts. go-sse's default
// (64 KiB) is too small for tasks carrying file artifacts; a larger event
// ends the stream with bufio.ErrTooLong.
const MaxEventSize = 16 << 20

// maxTail bounds how much of an incomplete final frame TruncatedError keeps.
const maxTail = 512

// TruncatedError reports a stream that ended mid-frame: bytes followed the
// last blank line, so the final event was never dispatched. go-sse drops
// such a frame silently; this error makes the loss visible. It matches
// io.ErrUnexpectedEOF with errors.Is.
type TruncatedError struct {
	// Pending is the number of bytes after the last blank line.
	Pending int64
	// Tail holds the first of those bytes (at most 512), for diagnostics.
	Tail []byte
}

// Error implements error.
func (e *TruncatedError) Error() string {
	return fmt.Sprintf("sse: stream ended mid-frame (%d bytes after the last blank line: %q)", e.Pending, e.Tail)
}

// Unwrap returns io.ErrUnexpectedEOF.
func (e *TruncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

// Read parses the event stream in r and yields its events in order. Comments
// (including keep-alives) and frames with no data, event or id field are not
// events and are skipped.
//
// Iteration ends after the first error. A clean end of input yields no
// error; input that ends mid-frame yields a *TruncatedError. When ctx is
// canceled, Read yields ctx.Err(); if r is an io.Closer it is closed on
// cancellation so that a Read blocked on it returns — a blocked read on any
// other reader is only noticed once it returns.
func Read(ctx context.Context, r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(Event{}, err)
			return
		}
		if c, ok := r.(io.Closer); ok {
			stop := context.AfterFunc(ctx, func() { _ = c.Close() })
			defer stop()
		}
		t := &tracker{r: r}
		for ev, err := range gosse.Read(t, &gosse.ReadConfig{MaxEventSize: MaxEventSize}) {
			if cerr := ctx.Err(); cerr != nil {
				yield(Event{}, cerr)
				return
			}
			if err != nil {
				yield(Event{}, fmt.Errorf("sse: read: %w", err))
				return
			}
			if !yield(Event{ID: ev.LastEventID, Name: ev.Type, Data: []byte(ev.Data)}, nil) {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(Event{}, err)
			return
		}
		if t.pending > 0 {
			yield(Event{}, &TruncatedError{Pending: t.pending, Tail: t.tail})
		}
	}
}

// Collect reads every event of r. It returns the events read before an
// error together with that error.
func Collect(ctx context.Context, r io.Reader) ([]Event, error) {
	var out []Event
	for ev, err := range Read(ctx, r) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// tracker passes reads through while following the SSE line structure, so
// that at EOF it knows whether anything came after the last blank line.
// go-sse cannot tell us: its Read treats an incomplete final event as a
// normal end of input.
type tracker struct {
	r         io.Reader
	prevCR    bool  // the last byte was '\r' (a following '\n' belongs to it)
	lineBytes bool  // the current line has content
	pending   int64 // bytes since the last blank line
	tail      []byte
}

func (t *tracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		switch {
		case c == '\n' && t.prevCR:
			// The second half of a CRLF already handled at its '\r'.
			t.prevCR = false
			if t.pending > 0 {
				t.note(c)
			}
		case c == '\r' || c == '\n':
			t.prevCR = c == '\r'
			if !t.lineBytes {
				// A blank line: whatever preceded it was a complete frame.
				t.pending, t.tail = 0, t.tail[:0]
				continue
			}
			t.lineBytes = false
			t.note(c)
		default:
			t.prevCR = false
			t.lineBytes = true
			t.note(c)
		}
	}
	return n, err
}

func (t *tracker) note(c byte) {
	t.pending++
	if len(t.tail) < maxTail {
		t.tail = append(t.tail, c)
	}
}
