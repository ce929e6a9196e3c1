package h2serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start serves h with install on 127.0.0.1 (h2c with prior knowledge, and
// HTTP/1.1); cfg adjusts the server first. It returns the address and a
// client that speaks h2c only.
func start(t *testing.T, h http.Handler, cfg ...func(*http.Server)) (string, *http.Client, *http.Server) {
	addr, client, srv, _ := startServer(t, h, cfg...)
	return addr, client, srv
}

// startServer is start, returning the server install attached too.
func startServer(t *testing.T, h http.Handler, cfg ...func(*http.Server)) (string, *http.Client, *http.Server, *server) {
	t.Helper()
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	for _, f := range cfg {
		f(srv)
	}
	s := install(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Close()
		<-done
	})
	return ln.Addr().String(), &http.Client{Transport: tr}, srv, s
}

// TestRequestsAndAnswers checks what a handler sees of a request and what
// the client sees of the answer: method, path, query, headers (split
// cookies joined), body, protocol, host, remote address; status, headers,
// a Content-Length for an answer that was not flushed, a sniffed
// Content-Type, no body for HEAD and 204.
func TestRequestsAndAnswers(t *testing.T) {
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Header().Set("X-Method", r.Method)
			w.Header().Set("X-Query", r.URL.RawQuery)
			w.Header().Set("X-Proto", r.Proto)
			w.Header().Set("X-Host", r.Host)
			w.Header().Set("X-Remote", r.RemoteAddr)
			w.Header().Set("X-Cookie", r.Header.Get("Cookie"))
			w.Header().Set("X-Custom", r.Header.Get("X-Custom"))
			w.Header().Set("X-Length", fmt.Sprint(r.ContentLength))
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
		case "/html":
			_, _ = io.WriteString(w, "<html><body>hi</body></html>")
		case "/none":
			w.WriteHeader(http.StatusNoContent)
			_, err := w.Write([]byte("x"))
			assert.ErrorIs(t, err, http.ErrBodyNotAllowed)
		}
	}))

	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/echo?a=1", strings.NewReader("hello body"))
	require.NoError(t, err)
	req.Header.Set("X-Custom", "yes")
	req.Header.Add("Cookie", "a=1")
	req.Header.Add("Cookie", "b=2")
	res, err := client.Do(req)
	body := readBody(t, res, err)
	assert.Equal(t, http.StatusCreated, res.StatusCode)
	assert.Equal(t, "HTTP/2.0", res.Proto)
	assert.Equal(t, "hello body", string(body))
	assert.Equal(t, "POST", res.Header.Get("X-Method"))
	assert.Equal(t, "a=1", res.Header.Get("X-Query"))
	assert.Equal(t, "HTTP/2.0", res.Header.Get("X-Proto"))
	assert.Equal(t, addr, res.Header.Get("X-Host"))
	assert.Contains(t, res.Header.Get("X-Remote"), "127.0.0.1:")
	assert.Equal(t, "a=1; b=2", res.Header.Get("X-Cookie"))
	assert.Equal(t, "yes", res.Header.Get("X-Custom"))
	assert.Equal(t, "10", res.Header.Get("X-Length"))
	assert.EqualValues(t, 10, res.ContentLength, "an answer not flushed carries its length")

	res, err = client.Get("http://" + addr + "/html")
	body = readBody(t, res, err)
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Equal(t, "<html><body>hi</body></html>", string(body))

	res, err = client.Head("http://" + addr + "/html")
	body = readBody(t, res, err)
	assert.Empty(t, body)

	res, err = client.Get("http://" + addr + "/none")
	body = readBody(t, res, err)
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Empty(t, body)
}

// TestTrailers checks both ways of setting trailers: http.TrailerPrefix
// after the body, and names declared in the Trailer header.
func TestTrailers(t *testing.T) {
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Declared")
		_, _ = io.WriteString(w, "body")
		w.(http.Flusher).Flush()
		w.Header().Set("X-Declared", "d")
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	}))
	res, err := client.Get("http://" + addr + "/")
	body := readBody(t, res, err)
	assert.Equal(t, "body", string(body))
	assert.Equal(t, "d", res.Trailer.Get("X-Declared"))
	assert.Equal(t, "0", res.Trailer.Get("Grpc-Status"))
	assert.Empty(t, res.Header.Get("Grpc-Status"), "a trailer is not a header")
}

// TestLargeBodies sends 5 MiB each way: the request body is five times
// the windows the server grants, so it only arrives if reading it returns
// window; the answer is larger than the client's initial window.
func TestLargeBodies(t *testing.T) {
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, r.Body)
	}))
	payload := bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16)
	res, err := client.Post("http://"+addr+"/", "application/octet-stream", bytes.NewReader(payload))
	require.NoError(t, err)
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.True(t, bytes.Equal(payload, got), "5 MiB came back intact (%d bytes)", len(got))
}

// TestFlushStreams checks that a flush sends what was written while the
// handler goes on.
func TestFlushStreams(t *testing.T) {
	release := make(chan struct{})
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "first\n")
		require.NoError(t, http.NewResponseController(w).Flush())
		<-release
		_, _ = io.WriteString(w, "second\n")
	}))
	res, err := client.Get("http://" + addr + "/")
	require.NoError(t, err)
	defer res.Body.Close()
	buf := make([]byte, 6)
	_, err = io.ReadFull(res.Body, buf)
	require.NoError(t, err)
	assert.Equal(t, "first\n", string(buf), "read while the handler waits")
	close(release)
	rest, _ := io.ReadAll(res.Body)
	assert.Equal(t, "second\n", string(rest))
	assert.EqualValues(t, -1, res.ContentLength, "a flushed answer has no length")
}

// TestClientCancelEndsContext checks that a client's RST_STREAM ends the
// handler's context, and that the connection serves the next request.
func TestClientCancelEndsContext(t *testing.T) {
	ended := make(chan struct{})
	started := make(chan struct{})
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		close(ended)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/wait", nil)
	res, err := client.Do(req)
	require.NoError(t, err)
	<-started
	cancel()
	res.Body.Close()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context did not end after the client reset the stream")
	}
	res, err = client.Get("http://" + addr + "/ok")
	b := readBody(t, res, err)
	assert.Equal(t, "ok", string(b))
}

// TestPanics checks that a handler's panic resets its stream only (the
// connection serves the next request), that http.ErrAbortHandler is not
// logged and that any other panic is.
func TestPanics(t *testing.T) {
	var logged syncbuf.Buffer
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/abort":
			_, _ = io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		case "/boom":
			panic("boom")
		}
		_, _ = io.WriteString(w, "ok")
	}), func(s *http.Server) { s.ErrorLog = log.New(&logged, "", 0) })

	res, err := client.Get("http://" + addr + "/abort")
	require.NoError(t, err, "the headers went out before the abort")
	_, err = io.ReadAll(res.Body)
	res.Body.Close()
	assert.ErrorContains(t, err, "INTERNAL_ERROR", "the client sees the stream reset")
	assert.NotContains(t, logged.String(), "panic", "ErrAbortHandler is not logged")

	_, err = client.Get("http://" + addr + "/boom")
	assert.Error(t, err)
	assert.Contains(t, logged.String(), "panic serving")
	assert.Contains(t, logged.String(), "boom")

	res, err = client.Get("http://" + addr + "/")
	b := readBody(t, res, err)
	assert.Equal(t, "ok", string(b))
}

// TestConcurrentStreams runs many requests at once on one connection.
func TestConcurrentStreams(t *testing.T) {
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Grpc-Status", "0")
		_, _ = w.Write(bytes.ToUpper(b))
	}))
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			msg := fmt.Sprintf("message %d %s", i, strings.Repeat("x", i*50))
			res, err := client.Post("http://"+addr+"/", "text/plain", strings.NewReader(msg))
			if !assert.NoError(t, err) {
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, strings.ToUpper(msg), string(b))
		})
	}
	wg.Wait()
}

// TestKeptWorkers checks that requests one after the other on a
// connection run on the goroutine the first one started.
func TestKeptWorkers(t *testing.T) {
	var conns []*conn
	addr, client, _, s := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for range 20 {
		res, err := client.Get("http://" + addr + "/")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	s.mu.Lock()
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	require.Len(t, conns, 1)
	// A request sent the moment the answer before it arrived may find its
	// worker not yet back (a second one starts); after that both are kept.
	assert.LessOrEqual(t, conns[0].started.Load(), int64(2), "20 requests in a row ran on at most two kept goroutines")
}

// TestShutdown checks that Shutdown sends GOAWAY, lets a request in
// flight finish, and closes the connection once it has.
func TestShutdown(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	addr, client, srv := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "finished")
	}))
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := client.Get("http://" + addr + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		got <- result{string(b), err}
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	time.Sleep(50 * time.Millisecond) // let the GOAWAY go out before the answer
	close(release)
	r := <-got
	require.NoError(t, r.err)
	assert.Equal(t, "finished", r.body, "the request in flight finished")
	select {
	case err := <-shut:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return once the last stream ended")
	}
}

// TestTLS checks h2 negotiated over TLS.
func TestTLS(t *testing.T) {
	var sawTLS bool
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawTLS = r.TLS != nil
		_, _ = io.WriteString(w, r.Proto)
	}))
	ts.EnableHTTP2 = true
	install(ts.Config)
	ts.StartTLS()
	defer ts.Close()
	res, err := ts.Client().Get(ts.URL)
	b := readBody(t, res, err)
	assert.Equal(t, "HTTP/2.0", string(b))
	assert.True(t, sawTLS, "the handler sees the TLS state")
}

// TestLargeHeaders checks a header block larger than a frame: the
// request's arrives in CONTINUATION frames, the answer's leaves in them.
func TestLargeHeaders(t *testing.T) {
	big := strings.Repeat("v", 40<<10)
	addr, client, _ := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("X-Big"))
		w.Header().Set(http.TrailerPrefix+"X-Trailer", r.Header.Get("X-Big"))
		_, _ = io.WriteString(w, "ok")
	}))
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
	req.Header.Set("X-Big", big)
	res, err := client.Do(req)
	readBody(t, res, err)
	assert.Equal(t, big, res.Header.Get("X-Echo"))
	assert.Equal(t, big, res.Trailer.Get("X-Trailer"))
}

// body reads and closes the body of an answer to a request that must have
// succeeded.
func readBody(t *testing.T, res *http.Response, err error) []byte {
	t.Helper()
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return b
}

func TestOfferH2(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, []string{"http/1.1", "h2"}},
		{[]string{"http/1.1"}, []string{"http/1.1", "h2"}},
		{[]string{"h2", "http/1.1"}, []string{"h2", "http/1.1"}},
	} {
		cfg := &tls.Config{NextProtos: slices.Clone(c.in)}
		got := OfferH2(cfg)
		if !slices.Equal(got.NextProtos, c.want) {
			t.Errorf("OfferH2(%q) offers %q, want %q", c.in, got.NextProtos, c.want)
		}
		if !slices.Equal(cfg.NextProtos, c.in) {
			t.Errorf("OfferH2(%q) changed its argument to %q", c.in, cfg.NextProtos)
		}
	}
}
