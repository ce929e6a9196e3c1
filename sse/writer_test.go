package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriterExactBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(*Writer)
		ev    Event
		want  string
	}{
		{"id name data", nil, Event{ID: "7", Name: "status", Data: []byte(`{"a":1}`)},
			"id: 7\nevent: status\ndata: {\"a\":1}\n\n"},
		{"data only", nil, Event{Data: []byte("x")}, "data: x\n\n"},
		{"empty data", nil, Event{}, "data:\n\n"},
		{"newlines split", nil, Event{Data: []byte("a\nb\r\nc\rd\n")},
			"data: a\ndata: b\ndata: c\ndata: d\ndata:\n\n"},
		{"leading space kept", nil, Event{Data: []byte(" x")}, "data:  x\n\n"},
		{"crlf", func(w *Writer) { w.CRLF = true }, Event{ID: "1", Name: "n", Data: []byte("a\nb")},
			"id: 1\r\nevent: n\r\ndata: a\r\ndata: b\r\n\r\n"},
		{"omit ids", func(w *Writer) { w.OmitIDs = true }, Event{ID: "1", Data: []byte("x")}, "data: x\n\n"},
		{"multiline json", func(w *Writer) { w.MultilineData = true }, Event{Data: []byte(`{"a":[1,2]}`)},
			"data: {\ndata:   \"a\": [\ndata:     1,\ndata:     2\ndata:   ]\ndata: }\n\n"},
		{"multiline non-json kept", func(w *Writer) { w.MultilineData = true }, Event{Data: []byte(`{oops`)},
			"data: {oops\n\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			w := NewWriter(rec)
			if tc.setup != nil {
				tc.setup(w)
			}
			frame, err := w.Frame(tc.ev)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(frame))
			require.NoError(t, w.Event(tc.ev))
			assert.Equal(t, tc.want, rec.Body.String())
			assert.Equal(t, int64(len(tc.want)), w.Bytes())
			assert.True(t, rec.Flushed)
		})
	}
}

func TestWriterHeaders(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := NewWriter(rec)
	require.NoError(t, w.WriteHeader())
	require.NoError(t, w.WriteHeader()) // idempotent: a second WriteHeader would log "superfluous" and is skipped
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	assert.Equal(t, "no-cache", rec.Header().Get("Cache-Control"))
	assert.Equal(t, "keep-alive", rec.Header().Get("Connection"))
	assert.Equal(t, "no", rec.Header().Get("X-Accel-Buffering"))
	assert.True(t, rec.Flushed)
	assert.Zero(t, w.Bytes())

	// A header set by the handler beforehand survives (used by faults).
	rec2 := httptest.NewRecorder()
	rec2.Header().Set("Content-Type", "application/json")
	require.NoError(t, NewWriter(rec2).Comment("x"))
	assert.Equal(t, "application/json", rec2.Header().Get("Content-Type"))
	assert.Equal(t, ": x\n\n", rec2.Body.String())
}

func TestWriterCommentsRawTruncate(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := NewWriter(rec)
	w.CRLF = true
	require.NoError(t, w.KeepAlive())
	require.NoError(t, w.Comment("two\nlines"))
	require.NoError(t, w.Comment(""))
	require.NoError(t, w.WriteRaw([]byte("da")))
	require.NoError(t, w.WriteRaw(nil))
	ev := Event{ID: "9", Data: []byte("hello")}
	require.NoError(t, w.Truncate(ev, 8))
	require.NoError(t, w.Truncate(ev, -3))
	require.NoError(t, w.Truncate(ev, 1000))
	want := ": keep-alive\r\n\r\n: two\r\n: lines\r\n\r\n:\r\n\r\nda" + "id: 9\r\nd" + "id: 9\r\ndata: hello\r\n\r\n"
	assert.Equal(t, want, rec.Body.String())
	assert.Equal(t, int64(len(want)), w.Bytes())
}

func TestWriterInvalidEvent(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := NewWriter(rec)
	for _, ev := range []Event{{ID: "a\nb"}, {ID: "a\x00"}, {Name: "x\ry"}} {
		err := w.Event(ev)
		require.ErrorIs(t, err, ErrInvalidEvent)
		require.ErrorIs(t, w.Truncate(ev, 3), ErrInvalidEvent)
		_, err = w.Frame(ev)
		require.ErrorIs(t, err, ErrInvalidEvent)
	}
	assert.Empty(t, rec.Body.String())
	// An invalid event is the caller's mistake, not a broken stream.
	require.NoError(t, w.Event(Event{Data: []byte("ok")}))
}

// plainWriter is a ResponseWriter that cannot flush.
type plainWriter struct {
	h    http.Header
	body bytes.Buffer
	code int
}

func (p *plainWriter) Header() http.Header         { return p.h }
func (p *plainWriter) Write(b []byte) (int, error) { return p.body.Write(b) }
func (p *plainWriter) WriteHeader(code int)        { p.code = code }

func TestWriterWithoutFlusher(t *testing.T) {
	t.Parallel()
	w := NewWriter(&plainWriter{h: http.Header{}})
	err := w.Event(Event{Data: []byte("x")})
	require.ErrorIs(t, err, http.ErrNotSupported)
	// Sticky: later writes report the same failure.
	require.ErrorIs(t, w.Comment("y"), http.ErrNotSupported)

	// echo's Response panics when its writer cannot flush; we must not.
	e := echo.New()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), &plainWriter{h: http.Header{}})
	w2 := NewWriter(c.Response())
	require.NotPanics(t, func() { err = w2.Event(Event{Data: []byte("x")}) })
	require.ErrorIs(t, err, http.ErrNotSupported)
}

type failingWriter struct{ plainWriter }

func (f *failingWriter) Write([]byte) (int, error) { return 0, errors.New("boom") }
func (f *failingWriter) Flush()                    {}

func TestWriterWriteErrorSticky(t *testing.T) {
	t.Parallel()
	w := NewWriter(&failingWriter{plainWriter{h: http.Header{}}})
	err := w.Event(Event{Data: []byte("x")})
	require.ErrorContains(t, err, "boom")
	assert.Equal(t, err, w.KeepAlive())
	assert.Equal(t, err, w.WriteHeader())
}

func TestWriterThroughEcho(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.HideBanner = true
	e.GET("/s", func(c echo.Context) error {
		w := NewWriter(c.Response())
		w.MultilineData = true
		if err := w.Event(Event{ID: "1", Name: "task", Data: []byte(`{"id":"t1","status":{"state":"working"}}`)}); err != nil {
			return err
		}
		return w.KeepAlive()
	})
	srv := httptest.NewServer(e)
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/s", nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, "no", s.Response().Header.Get("X-Accel-Buffering"))
	var got []Event
	for ev, err := range s.Events() {
		require.NoError(t, err)
		got = append(got, ev)
	}
	require.Len(t, got, 1)
	assert.Equal(t, "1", got[0].ID)
	assert.Equal(t, "task", got[0].Name)
	assert.Contains(t, string(got[0].Data), "\n", "data should have been spread over several lines")
	assert.JSONEq(t, `{"id":"t1","status":{"state":"working"}}`, string(got[0].Data))
}

// TestWriterClientDisconnect checks that a handler streaming into a client
// that went away gets an error instead of writing forever.
func TestWriterClientDisconnect(t *testing.T) {
	t.Parallel()
	handlerErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := NewWriter(rw)
		payload := []byte(strings.Repeat("x", 1024))
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if err := w.Event(Event{Data: payload}); err != nil {
				// A second write must fail too, without panicking.
				if err2 := w.Event(Event{Data: payload}); err2 == nil {
					err = errors.New("write after failure succeeded")
				}
				handlerErr <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
		handlerErr <- nil
	}))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)
	for ev, err := range s.Events() {
		require.NoError(t, err)
		require.Len(t, ev.Data, 1024)
		break
	}
	require.NoError(t, s.Close())

	select {
	case err := <-handlerErr:
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "write after failure succeeded")
	case <-time.After(15 * time.Second):
		t.Fatal("handler did not finish")
	}
}

func TestWriterMultilineRoundTripJSON(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := NewWriter(rec)
	w.MultilineData = true
	w.CRLF = true
	orig := `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","final":true,"text":"a\nb"}}`
	require.NoError(t, w.Event(Event{Data: []byte(orig)}))
	assert.Greater(t, strings.Count(rec.Body.String(), "data: "), 3)
	evs, err := Collect(t.Context(), rec.Body)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, evs[0].Data))
	assert.Equal(t, orig, compact.String())
}

// flushCounter counts the flushes that reach it.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// TestWriterLast: Last writes the frame Event would but leaves it for the
// response's end: no flush after the headers'.
func TestWriterLast(t *testing.T) {
	t.Parallel()
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(rec)
	require.NoError(t, w.Event(Event{Data: []byte("1")}))
	before := rec.flushes
	require.NoError(t, w.Last(Event{Data: []byte("2")}))
	assert.Equal(t, before, rec.flushes, "Last does not flush")
	assert.Equal(t, "data: 1\n\ndata: 2\n\n", rec.Body.String())
	assert.Equal(t, int64(len("data: 1\n\ndata: 2\n\n")), w.Bytes())

	fresh := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	require.NoError(t, NewWriter(fresh).Last(Event{Data: []byte("only")}))
	assert.Equal(t, 1, fresh.flushes, "the headers alone are flushed")
	assert.Equal(t, "text/event-stream", fresh.Header().Get("Content-Type"))
	assert.Equal(t, "data: only\n\n", fresh.Body.String())
}

// TestWriterPut: Put writes exactly its bytes and leaves them unflushed
// until Flush; both count toward Bytes.
func TestWriterPut(t *testing.T) {
	t.Parallel()
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(rec)
	require.NoError(t, w.Put([]byte("data: 1\n")))
	assert.Equal(t, 1, rec.flushes, "the headers alone are flushed")
	require.NoError(t, w.Put([]byte("\n")))
	assert.Equal(t, 1, rec.flushes, "Put does not flush")
	require.NoError(t, w.Flush())
	assert.Equal(t, 2, rec.flushes)
	assert.Equal(t, "data: 1\n\n", rec.Body.String())
	assert.Equal(t, int64(len("data: 1\n\n")), w.Bytes())
}
