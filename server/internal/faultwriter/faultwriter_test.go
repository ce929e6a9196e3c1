package faultwriter

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
)

// unary writes an answer the way the server does: Content-Length, one
// WriteHeader, one Write.
func unary(w http.ResponseWriter, status int, body string) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err := w.Write([]byte(body))
	return err
}

func TestReplaceSendsTheFixedAnswerOnly(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := Replace(rec, http.StatusServiceUnavailable, http.Header{"Retry-After": {"1"}}, []byte("busy"))
	err := unary(w, http.StatusOK, `{"ok":true}`)
	assert.ErrorIs(t, err, ErrReplaced)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "busy", rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Empty(t, rec.Header().Get("Content-Type"), "the server's headers do not leak into the replacement")
}

func TestCorruptAndRewriteFixTheLength(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	require.NoError(t, unary(Corrupt(rec, 1, func(b []byte) []byte { return append(b[:len(b)-1], "garbage"...) }), http.StatusOK, `{"a":1}`))
	assert.Equal(t, `{"a":1garbage`, rec.Body.String())
	assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))

	rec = httptest.NewRecorder()
	w := Rewrite(rec, func(status int, h http.Header, body []byte) (int, []byte) {
		h.Set("Content-Type", "text/html")
		return http.StatusBadGateway, []byte("<html>proxy error</html>")
	}, nil)
	require.NoError(t, unary(w, http.StatusOK, `{"a":1}`))
	assert.Equal(t, http.StatusBadGateway, rec.Code)
	assert.Equal(t, "<html>proxy error</html>", rec.Body.String())
	assert.Equal(t, "text/html", rec.Header().Get("Content-Type"))
	assert.Equal(t, "24", rec.Header().Get("Content-Length"))

	// A stream's data frames: only the nth is corrupted.
	rec = httptest.NewRecorder()
	w = Corrupt(rec, 2, bytes.ToUpper)
	for _, frame := range []string{"data: {\"n\":1}\n\n", "data: {\"n\":2}\n\n", ": keep-alive\n\n"} {
		_, err := w.Write([]byte(frame))
		require.NoError(t, err)
	}
	assert.Equal(t, "data: {\"n\":1}\n\nDATA: {\"N\":2}\n\n: keep-alive\n\n", rec.Body.String())
}

func TestDropCommentsWhileHeld(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	held := true
	w := DropComments(rec, func() bool { return held })
	for _, frame := range []string{": ping\n\n", "data: x\n\n"} {
		_, err := w.Write([]byte(frame))
		require.NoError(t, err)
	}
	held = false
	_, err := w.Write([]byte(": ping\n\n"))
	require.NoError(t, err)
	assert.Equal(t, "data: x\n\n: ping\n\n", rec.Body.String())
}

// TestCutEndsTheConnectionAfterLimit: the client gets the status line,
// the headers and the first 5 body bytes, then an error, and the server
// sees ErrCut.
func TestCutEndsTheConnectionAfterLimit(t *testing.T) {
	t.Parallel()
	for _, reset := range []bool{false, true} {
		serverErr := make(chan error, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			cut := false
			serverErr <- unary(Cut(w, 5, reset, func() { cut = true }), http.StatusOK, `{"result":"long enough"}`)
			assert.True(t, cut, "onCut ran")
		}))
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Error(t, err, "reset=%v: the body ends early", reset)
		assert.Equal(t, `{"res`, string(body), "reset=%v", reset)
		assert.ErrorIs(t, <-serverErr, ErrCut)
		srv.Close()
	}
}

// TestBodyDelayHoldsTheBodyOnTheClock: the headers go out at once; the
// body waits for the fake clock, and a request that ends first gets its
// context's error.
func TestBodyDelayHoldsTheBodyOnTheClock(t *testing.T) {
	t.Parallel()
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	rec := httptest.NewRecorder()
	w := BodyDelay(rec, time.Second, context.Background(), clock)
	w.WriteHeader(http.StatusOK)
	assert.True(t, rec.Flushed, "the status line and headers are flushed at once")
	done := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte("body"))
		done <- err
	}()
	clock.BlockUntil(1)
	assert.Empty(t, rec.Body.String(), "the body waits")
	clock.Advance(time.Second)
	require.NoError(t, <-done)
	assert.Equal(t, "body", rec.Body.String())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := BodyDelay(httptest.NewRecorder(), time.Second, ctx, clock).Write([]byte("x"))
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}
