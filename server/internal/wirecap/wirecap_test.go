package wirecap

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCaptureKeepsTaggedExchangesRedacted: a request read and answered
// through Wrap is kept once tagged, with its bodies, its status and its
// headers, credentials replaced by their length (in headers, in bodies,
// and the query's values); an untagged one is not kept, and Reset forgets
// everything.
func TestCaptureKeepsTaggedExchangesRedacted(t *testing.T) {
	t.Parallel()
	c := New()
	at := time.Unix(10, 0)
	serve := func(reqNo int64, body string) {
		r := httptest.NewRequest(http.MethodPost, "/agents/a/?api_key=k3y", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer s3cret")
		r.Header.Set("Content-Type", "application/json")
		w, rec := c.Wrap(httptest.NewRecorder(), r, at)
		_, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		if reqNo > 0 {
			// Through a writer wrapping the capture's, as echo's is.
			Tag(wrapped{w}, reqNo, 0)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"ok":true,"token":"tok-2"}`))
		rec.Finish()
	}
	serve(7, `{"jsonrpc":"2.0","params":{"url":"https://h.example/?sig=s1g","authentication":{"credentials":"cr3d"}}}`)
	serve(0, `untagged`)

	x, ok := c.Get(7, 0)
	require.True(t, ok)
	assert.Equal(t, int64(7), x.Request)
	assert.Equal(t, "/agents/a/?api_key=redacted", x.URL)
	assert.Equal(t, `{"jsonrpc":"2.0","params":{"url":"https://h.example/?sig=redacted","authentication":{"credentials":"[redacted: 4 bytes]"}}}`, x.Body.Text)
	assert.Equal(t, int64(len(`{"jsonrpc":"2.0","params":{"url":"https://h.example/?sig=s1g","authentication":{"credentials":"cr3d"}}}`)), x.Body.Size, "the size is the bytes sent")
	assert.Equal(t, http.StatusAccepted, x.Status)
	assert.Equal(t, `{"ok":true,"token":"[redacted: 5 bytes]"}`, x.Response.Text)
	assert.True(t, x.Done)
	assert.Equal(t, "[redacted: 13 bytes]", x.Header.Get("Authorization"))
	assert.Equal(t, "application/json", x.Header.Get("Content-Type"))
	assert.Equal(t, at.UTC(), x.Time)

	c.Reset()
	_, ok = c.Get(7, 0)
	assert.False(t, ok, "Reset forgets")
}

// TestBodiesAreBounded: a body over the limit keeps its start, counts
// every byte and says it was truncated; bytes that are not UTF-8 are kept
// as Base64.
func TestBodiesAreBounded(t *testing.T) {
	t.Parallel()
	var b wireBuf
	b.add([]byte(strings.Repeat("é", wireBodyMax))) // 2 bytes each
	body := b.body("", "", true)
	assert.Equal(t, int64(2*wireBodyMax), body.Size)
	assert.True(t, body.Truncated)
	assert.Len(t, body.Text, wireBodyMax)

	var bin wireBuf
	bin.add([]byte{0xff, 0xfe, 0x00})
	assert.Equal(t, "//4A", bin.body("", "", false).Base64)
	assert.Empty(t, bin.body("", "", false).Text)
}

// TestOversizedHeadersAreBoundedOnceRedacted: a request with more header
// bytes than the capture keeps is cut (and counted) when it arrives, and
// its credentials are redacted once, not twice.
func TestOversizedHeadersAreBoundedOnceRedacted(t *testing.T) {
	t.Parallel()
	c := New()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	r.Header.Set("Authorization", "Bearer s3cret")
	r.Header.Set("X-Big", strings.Repeat("b", wireHeadMax))
	w, rec := c.Wrap(httptest.NewRecorder(), r, time.Unix(0, 0))
	Tag(w, 1, 0)
	rec.Finish()
	x, ok := c.Get(1, 0)
	require.True(t, ok)
	assert.Equal(t, "[redacted: 13 bytes]", x.Header.Get("Authorization"))
	assert.Empty(t, x.Header.Get("X-Big"), "over the bound")
	assert.Contains(t, x.Header.Get("…"), "more header bytes not kept")
}

// wrapped is a writer that wraps another and says so, as echo's Response
// and the transport behaviors' writers do.
type wrapped struct{ http.ResponseWriter }

func (w wrapped) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestTagLeavesOtherWritersAlone: a writer that wraps no capture (the gRPC
// binding's, a recorder) is left alone.
func TestTagLeavesOtherWritersAlone(t *testing.T) {
	t.Parallel()
	c := New()
	Tag(httptest.NewRecorder(), 1, 0)
	Tag(wrapped{httptest.NewRecorder()}, 2, 0)
	Tag(nil, 3, 0)
	for req := int64(1); req <= 3; req++ {
		_, ok := c.Get(req, 0)
		assert.False(t, ok, "request %d", req)
	}
}

// TestGetWhileAnswering: a view asked for while an event stream is still
// being written shows a consistent start of it, redacted, and races nothing
// (the bodies are redacted after the capture's lock is let go).
func TestGetWhileAnswering(t *testing.T) {
	t.Parallel()
	c := New()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"token":"t0k"}`))
	r.Header.Set("Content-Type", "application/json")
	w, rec := c.Wrap(httptest.NewRecorder(), r, time.Unix(1, 0))
	_, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	Tag(w, 1, 0)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			_, _ = w.Write([]byte("data: {\"token\":\"s3cret\"}\n\n"))
		}
		rec.Finish()
	}()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		x, ok := c.Get(1, 0)
		require.True(t, ok)
		assert.Equal(t, `{"token":"[redacted: 3 bytes]"}`, x.Body.Text)
		assert.NotContains(t, x.Response.Text, "s3cret")
		assert.Zero(t, strings.Count(x.Response.Text, "data: ")-strings.Count(x.Response.Text, `data: {"token":"[redacted: 6 bytes]"}`),
			"every whole event is redacted: %q", x.Response.Text)
	}
}

// TestResponseHeaderIsASnapshot: the response header is kept as it was
// when the answer started (later changes are trailers, not headers),
// every value of a repeated name in order, credentials redacted; the
// trailers it declared are read at Finish; an answer that sent no header
// still shows an empty one, and one with more than wireHeadMax header
// bytes is bounded.
func TestResponseHeaderIsASnapshot(t *testing.T) {
	t.Parallel()
	c := New()
	serve := func(reqNo int64, set func(http.Header)) Exchange {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		w, rec := c.Wrap(httptest.NewRecorder(), r, time.Unix(1, 0))
		Tag(w, reqNo, 0)
		set(w.Header())
		w.WriteHeader(http.StatusOK)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Checksum", "abc")
		rec.Finish()
		x, ok := c.Get(reqNo, 0)
		require.True(t, ok)
		return x
	}
	x := serve(1, func(h http.Header) {
		h.Set("Content-Type", "application/json")
		h.Add("Vary", "A")
		h.Add("Vary", "B")
		h.Set("Set-Cookie", "s=1")
		h.Set("Trailer", "X-Checksum")
	})
	assert.Equal(t, http.Header{"Content-Type": {"application/json"}, "Vary": {"A", "B"}, "Set-Cookie": {"[redacted: 3 bytes]"}, "Trailer": {"X-Checksum"}}, x.RespHead)
	assert.Equal(t, http.Header{"X-Checksum": {"abc"}}, x.Trailer)

	x = serve(2, func(http.Header) {})
	assert.Equal(t, http.Header{}, x.RespHead)
	assert.Nil(t, x.Trailer)

	x = serve(3, func(h http.Header) { h.Set("X-Big", strings.Repeat("x", wireHeadMax+1)) })
	assert.Equal(t, []string{strconv.Itoa(len("X-Big")+wireHeadMax+1) + " more header bytes not kept"}, x.RespHead["…"])
}

// tagged is a recorder in front of the server that asks for the journal's
// numbers of its exchange (ExchangeTagger).
type tagged struct {
	http.ResponseWriter
	reqNo, seq int64
}

func (w *tagged) TagExchange(reqNo, seq int64) { w.reqNo, w.seq = reqNo, seq }
func (w *tagged) Unwrap() http.ResponseWriter  { return w.ResponseWriter }
func (w *tagged) Header() http.Header          { return w.ResponseWriter.Header() }
func (w *tagged) Write(b []byte) (int, error)  { return w.ResponseWriter.Write(b) }
func (w *tagged) WriteHeader(code int)         { w.ResponseWriter.WriteHeader(code) }

// TestTagReachesWritersInFront: Tag tells every ExchangeTagger among the
// writers it wraps, in front of the capture or with none, what it was
// told; the capture is tagged as before.
func TestTagReachesWritersInFront(t *testing.T) {
	t.Parallel()
	c := New()
	outer := &tagged{ResponseWriter: httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	w, _ := c.Wrap(outer, r, time.Unix(0, 0))
	Tag(wrapped{w}, 7, 0)
	assert.Equal(t, [2]int64{7, 0}, [2]int64{outer.reqNo, outer.seq})
	_, ok := c.Get(7, 0)
	assert.True(t, ok, "the capture is tagged too")

	alone := &tagged{ResponseWriter: httptest.NewRecorder()}
	Tag(wrapped{alone}, 0, 9)
	assert.Equal(t, [2]int64{0, 9}, [2]int64{alone.reqNo, alone.seq}, "a writer with no capture behind it")
}

// TestGetFindsTheNewestKept: Get finds an exchange by request number, or a
// card fetch by seq; of two given one number (request numbers start over
// on a reset) the newest; the oldest beyond wireKeep is gone, and a
// negative number or an unknown one finds nothing.
func TestGetFindsTheNewestKept(t *testing.T) {
	t.Parallel()
	c := New()
	serve := func(reqNo, seq int64, status int) {
		w, rec := c.Wrap(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil), time.Unix(1, 0))
		Tag(w, reqNo, seq)
		w.WriteHeader(status)
		rec.Finish()
	}
	serve(1, 0, 201)
	serve(0, 5, 202) // a card fetch, journaled as seq 5
	serve(1, 0, 203) // request 1 again, after a reset of the numbers
	serve(2, 5, 204) // a request whose entry happens to be seq 5
	status := func(req, seq int64) int {
		x, ok := c.Get(req, seq)
		if !ok {
			return 0
		}
		return x.Status
	}
	assert.Equal(t, 203, status(1, 0))
	assert.Equal(t, 202, status(0, 5), "seq finds the card fetch, not the request")
	assert.Equal(t, 204, status(2, 0))
	assert.Zero(t, status(-1, 5))
	assert.Zero(t, status(3, 0))
	for i := range wireKeep {
		serve(int64(100+i), 0, 200)
	}
	assert.Zero(t, status(1, 0), "pushed out")
	assert.Zero(t, status(0, 5), "pushed out")
	assert.Equal(t, 200, status(100, 0))
	assert.Equal(t, 200, status(int64(100+wireKeep-1), 0))
}

// TestBodiesSurviveBufferReuse: once the capture is full, the body buffers
// of the exchanges it lets go are reused by the next ones; every exchange
// kept still shows its own bodies, a Get running meanwhile sees whole
// bodies only, and an exchange still answering when it is let go goes on
// writing without touching another's bytes.
func TestBodiesSurviveBufferReuse(t *testing.T) {
	t.Parallel()
	c := New()
	body := func(n int) string { return `{"n":` + strconv.Itoa(n) + `,"pad":"` + strings.Repeat("x", n%300) + `"}` }
	reply := func(n int) string {
		return `{"r":` + strconv.Itoa(n) + `,"pad":"` + strings.Repeat("y", n*7%900) + `"}`
	}
	serve := func(n int) (http.ResponseWriter, *Rec) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body(n)))
		w, rec := c.Wrap(httptest.NewRecorder(), r, time.Unix(1, 0))
		_, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		Tag(w, int64(n), 0)
		_, _ = w.Write([]byte(reply(n)))
		return w, rec
	}
	// The first exchange is still answering when it is let go.
	open, openRec := serve(1)
	done := make(chan struct{})
	var last atomic.Int64
	go func() { // a reader of the raw view meanwhile, of the oldest kept
		defer close(done)
		for last.Load() < 3*wireKeep {
			n := int(max(last.Load()-wireKeep+2, 2))
			if x, ok := c.Get(int64(n), 0); ok {
				assert.Equal(t, body(n), x.Body.Text)
				if x.Response.Size > 0 { // else not answered yet
					assert.Equal(t, reply(n), x.Response.Text)
				}
			}
		}
	}()
	for n := 2; n <= 3*wireKeep; n++ {
		_, rec := serve(n)
		rec.Finish()
		last.Store(int64(n))
	}
	<-done
	_, _ = open.Write([]byte("more"))
	openRec.Finish()
	_, ok := c.Get(1, 0)
	assert.False(t, ok, "let go")
	for n := 2*wireKeep + 1; n <= 3*wireKeep; n++ {
		x, ok := c.Get(int64(n), 0)
		require.True(t, ok, n)
		require.Equal(t, body(n), x.Body.Text, n)
		require.Equal(t, reply(n), x.Response.Text, n)
		require.Equal(t, int64(len(reply(n))), x.Response.Size, n)
	}
}
