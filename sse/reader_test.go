package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTripOverHTTP(t *testing.T) {
	t.Parallel()
	sent := []Event{
		{ID: "1", Name: "task", Data: []byte(`{"kind":"task","id":"t1"}`)},
		{Data: []byte("line one\nline two\r\nline three")},
		{ID: "3", Name: "status-update", Data: []byte(`{"final":true}`)},
		{ID: "4", Data: []byte("")},
	}
	for _, crlf := range []bool{false, true} {
		name := "LF"
		if crlf {
			name = "CRLF"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.Header.Get("Accept") != "text/event-stream" {
					http.Error(rw, "bad request", http.StatusBadRequest)
					return
				}
				body, _ := io.ReadAll(r.Body)
				w := NewWriter(rw)
				w.CRLF = crlf
				_ = w.Comment("opened for " + string(body))
				for _, ev := range sent {
					_ = w.KeepAlive()
					_ = w.Event(ev)
				}
				_ = w.KeepAlive()
			}))
			defer srv.Close()

			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0"}`))
			require.NoError(t, err)
			s, err := Do(t.Context(), srv.Client(), req)
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, http.StatusOK, s.Response().StatusCode)
			var got []Event
			for ev, err := range s.Events() {
				require.NoError(t, err)
				got = append(got, ev)
			}
			require.Len(t, got, len(sent))
			want := []Event{
				{ID: "1", Name: "task", Data: []byte(`{"kind":"task","id":"t1"}`)},
				// The reader reports the last event ID, as EventSource does,
				// and joins data lines with "\n".
				{ID: "1", Data: []byte("line one\nline two\nline three")},
				{ID: "3", Name: "status-update", Data: []byte(`{"final":true}`)},
				{ID: "4", Data: []byte{}},
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestReadTruncation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		events  int
		pending int64
	}{
		{"empty", "", 0, 0},
		{"clean LF", "data: a\n\ndata: b\n\n", 2, 0},
		{"clean CRLF", "data: a\r\n\r\n", 1, 0},
		{"clean CR", "data: a\r\r", 1, 0},
		{"extra blank lines", "\n\ndata: a\n\n\n\r\n", 1, 0},
		{"comment frame", ": keep-alive\n\n", 0, 0},
		{"cut mid-line", "data: a\n\ndata: {\"x", 1, 9},
		{"complete line no blank", "data: a\n\nid: 2\ndata: b\n", 1, 14},
		{"cut mid CRLF blank", "data: a\r\n\r\ndata: b\r\n", 1, 9},
		{"trailing comment", "data: a\n\n: x", 1, 3},
		{"only partial", "da", 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One byte per read puts every CR/LF pair across two reads.
			_, oneErr := Collect(t.Context(), iotest.OneByteReader(strings.NewReader(tc.in)))
			evs, err := Collect(t.Context(), strings.NewReader(tc.in))
			assert.Len(t, evs, tc.events)
			assert.Equal(t, err, oneErr)
			if tc.pending == 0 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			var te *TruncatedError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tc.pending, te.Pending)
			assert.Equal(t, tc.in[len(tc.in)-int(tc.pending):], string(te.Tail))
		})
	}
}

func TestTruncatedFrameOverHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := NewWriter(rw)
		_ = w.Event(Event{ID: "1", Data: []byte(`{"n":1}`)})
		_ = w.Truncate(Event{ID: "2", Data: []byte(`{"n":2}`)}, 12)
	}))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodPost, srv.URL, nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)
	defer s.Close()
	var got []Event
	var last error
	for ev, err := range s.Events() {
		if err != nil {
			last = err
			break
		}
		got = append(got, ev)
	}
	require.Len(t, got, 1)
	assert.Equal(t, `{"n":1}`, string(got[0].Data))
	require.ErrorIs(t, last, io.ErrUnexpectedEOF)
	var te *TruncatedError
	require.ErrorAs(t, last, &te)
	assert.Equal(t, "id: 2\ndata: ", string(te.Tail))
}

func TestReadEventTooLarge(t *testing.T) {
	t.Parallel()
	in := "data: " + strings.Repeat("x", MaxEventSize+1) + "\n\n"
	_, err := Collect(t.Context(), strings.NewReader(in))
	require.Error(t, err)
	assert.NotErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestNotAStream(t *testing.T) {
	t.Parallel()
	const rpcErr = `{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Streaming is not supported"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/plain" {
			http.Error(rw, "nope", http.StatusMethodNotAllowed)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, rpcErr)
	}))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodPost, srv.URL+"/rpc", strings.NewReader(`{}`))
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.Nil(t, s)
	var nse *NotAStreamError
	require.ErrorAs(t, err, &nse)
	assert.Equal(t, http.StatusOK, nse.Status)
	assert.Equal(t, "application/json", nse.ContentType)
	assert.JSONEq(t, rpcErr, string(nse.Body))
	assert.Contains(t, err.Error(), "application/json")

	req, err = http.NewRequest(http.MethodGet, srv.URL+"/plain", nil)
	require.NoError(t, err)
	_, err = Do(t.Context(), srv.Client(), req)
	require.ErrorAs(t, err, &nse)
	assert.Equal(t, http.StatusMethodNotAllowed, nse.Status)
	assert.Equal(t, "text/plain; charset=utf-8", nse.ContentType)
	assert.Equal(t, "nope\n", string(nse.Body))
}

func TestContentTypeWithParams(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "Text/Event-Stream; charset=utf-8")
		w := NewWriter(rw)
		_ = w.Event(Event{Data: []byte("x")})
	}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "*/*")
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)
	defer s.Close()
	evs, err := collectStream(s)
	require.NoError(t, err)
	require.Len(t, evs, 1)
}

func TestDoTransportError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	c := srv.Client()
	srv.Close()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), c, req)
	require.Error(t, err)
	require.Nil(t, s)
	var nse *NotAStreamError
	assert.False(t, errors.As(err, &nse))
}

// holdOpen serves one event and then keeps the stream open until the
// client goes away (or the test ends).
func holdOpen(t *testing.T) *httptest.Server {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := NewWriter(rw)
		_ = w.Event(Event{ID: "1", Data: []byte("first")})
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestContextCancelEndsStream(t *testing.T) {
	t.Parallel()
	srv := holdOpen(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequest(http.MethodPost, srv.URL, nil)
	require.NoError(t, err)
	s, err := Do(ctx, srv.Client(), req)
	require.NoError(t, err)
	defer s.Close()

	var n int
	var last error
	for ev, err := range s.Events() {
		if err != nil {
			last = err
			break
		}
		n++
		assert.Equal(t, "first", string(ev.Data))
		time.AfterFunc(20*time.Millisecond, cancel)
	}
	assert.Equal(t, 1, n)
	require.ErrorIs(t, last, context.Canceled)
}

func TestRequestContextCancelEndsStream(t *testing.T) {
	t.Parallel()
	srv := holdOpen(t)
	reqCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, srv.URL, nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)
	defer s.Close()
	time.AfterFunc(20*time.Millisecond, cancel)
	evs, err := collectStream(s)
	require.Len(t, evs, 1)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCloseEndsBlockedIteration(t *testing.T) {
	t.Parallel()
	srv := holdOpen(t)
	req, err := http.NewRequest(http.MethodPost, srv.URL, nil)
	require.NoError(t, err)
	s, err := Do(t.Context(), srv.Client(), req)
	require.NoError(t, err)

	res := make(chan error, 1)
	go func() {
		_, err := collectStream(s)
		res <- err
	}()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close()) // idempotent
	select {
	case err := <-res:
		require.ErrorIs(t, err, ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("iteration did not end after Close")
	}
}

func TestReadContextCancelOnPipe(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		_, _ = io.WriteString(pw, "data: a\n\n")
	}()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []string
	var last error
	for ev, err := range Read(ctx, pr) {
		if err != nil {
			last = err
			break
		}
		got = append(got, string(ev.Data))
		cancel() // the next read blocks on the pipe; cancel must end it
	}
	assert.Equal(t, []string{"a"}, got)
	require.ErrorIs(t, last, context.Canceled)

	// An already canceled context yields its error without reading.
	evs, err := Collect(ctx, strings.NewReader("data: b\n\n"))
	assert.Empty(t, evs)
	require.ErrorIs(t, err, context.Canceled)
}

func TestReadStopsWhenConsumerBreaks(t *testing.T) {
	t.Parallel()
	var n int
	for _, err := range Read(t.Context(), strings.NewReader("data: a\n\ndata: b\n\ndata: c")) {
		require.NoError(t, err)
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
}

func collectStream(s *Stream) ([]Event, error) {
	var out []Event
	for ev, err := range s.Events() {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}
