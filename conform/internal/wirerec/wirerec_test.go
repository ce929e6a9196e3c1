package wirerec

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
)

// mockServer reads requests as the mock's does (server.Server's AgentOf
// and GRPCCall), for a server hosting alpha (the root) and beta with gRPC
// on: /agents/{name}/… addresses name, anything else alpha, and a v1.0
// gRPC call the agent its tenant names. The server's read and Begin's
// leave the body whole, which the tests see too.
func mockServer(t testing.TB) Server {
	t.Helper()
	srv, err := server.New(server.Config{Agents: []server.AgentConfig{{Name: "alpha"}, {Name: "beta"}}, GRPC: true, StepDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// TestBegin: what the start of an exchange says about it, and a body that
// still reads whole after Begin read its start.
func TestBegin(t *testing.T) {
	t.Parallel()
	srv := mockServer(t)
	rpc := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m"}}}`
	for _, c := range []struct {
		name string
		req  func() *http.Request
		want judge.WireRecord
	}{
		{"a JSON-RPC call with A2A-Version", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/agents/beta/", strings.NewReader(rpc))
			r.Header.Set("A2A-Version", "1.0")
			return r
		}, judge.WireRecord{Method: "POST", Path: "/agents/beta/", Agent: "beta", RPCMethod: "SendMessage", A2AVersion: "1.0", VersionSent: true}},
		{"an empty A2A-Version is sent", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(rpc))
			r.Header.Set("A2A-Version", "")
			return r
		}, judge.WireRecord{Method: "POST", Path: "/", Agent: "alpha", RPCMethod: "SendMessage", VersionSent: true}},
		{"two A2A-Version headers", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(rpc))
			r.Header.Add("A2A-Version", "0.3")
			r.Header.Add("A2A-Version", "1.0")
			return r
		}, judge.WireRecord{Method: "POST", Path: "/", Agent: "alpha", RPCMethod: "SendMessage", A2AVersion: "0.3,1.0", VersionSent: true}},
		{"A2A-Version as a query parameter", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/agents/beta/tasks/t1?A2A-Version=1.0", nil)
		}, judge.WireRecord{Method: "GET", Path: "/agents/beta/tasks/t1", Agent: "beta", A2AVersion: "1.0", VersionSent: true}},
		{"a GET's body is not read", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", strings.NewReader(rpc))
		}, judge.WireRecord{Method: "GET", Path: "/.well-known/agent-card.json", Agent: "alpha"}},
		{"a POST that is not JSON", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/agents/beta/message:send", strings.NewReader("not json"))
		}, judge.WireRecord{Method: "POST", Path: "/agents/beta/message:send", Agent: "beta"}},
	} {
		r := c.req()
		sent := ""
		if r.Method == http.MethodPost {
			sent = bodyOf(t, r)
			r = c.req()
		}
		got := Begin(r, srv)
		if got.Start.IsZero() || got.Conn != r.RemoteAddr {
			t.Errorf("%s: start %v, conn %q (request from %q)", c.name, got.Start, got.Conn, r.RemoteAddr)
		}
		got.Start, got.Conn = time.Time{}, ""
		if !equal(got, c.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", c.name, got, c.want)
		}
		if r.Method == http.MethodPost {
			if after := bodyOf(t, r); after != sent {
				t.Errorf("%s: the body reads %q after Begin, %q before", c.name, after, sent)
			}
		}
	}
}

// TestBeginPeekLimit: Begin reads at most the first MiB of a body to find
// its method; a longer body still reads whole, and a method past the
// limit (a JSON object not whole in it) is not known.
func TestBeginPeekLimit(t *testing.T) {
	t.Parallel()
	srv := mockServer(t)
	pad := strings.Repeat("x", maxPeek)
	for _, c := range []struct {
		name, body, method string
	}{
		{"method first, a long body", `{"method":"SendMessage","params":{"pad":"` + pad + `"}}`, ""},
		{"a body of the limit exactly", `{"method":"GetTask","p":"` + pad[:maxPeek-len(`{"method":"GetTask","p":""}`)] + `"}`, "GetTask"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(c.body))
		rec := Begin(r, srv)
		if rec.RPCMethod != c.method {
			t.Errorf("%s (%d bytes): method %q, want %q", c.name, len(c.body), rec.RPCMethod, c.method)
		}
		if got := bodyOf(t, r); got != c.body {
			t.Errorf("%s: the body reads %d bytes after Begin, want %d", c.name, len(got), len(c.body))
		}
	}
}

// TestBeginGRPC: a gRPC call's method is the one its path names below its
// agent's base path, at the root and below an agent's path alike, its
// tenant the one its request carries, and its agent the server's: the
// tenant's when the server hosts one of that name and reads the message.
func TestBeginGRPC(t *testing.T) {
	t.Parallel()
	srv := mockServer(t)
	grpcFrame := func(b []byte) []byte { return a2apb.AppendMessage(nil, b) }
	for _, c := range []struct {
		name, tenant, agent string
		frame               func([]byte) []byte
	}{
		{"a known tenant", "beta", "beta", grpcFrame},
		{"an unknown tenant", "gamma", "alpha", grpcFrame},
		{"no tenant", "", "alpha", grpcFrame},
		{"a compressed message is not read", "beta", "alpha", func(b []byte) []byte { f := a2apb.AppendMessage(nil, b); f[0] = 1; return f }},
	} {
		msg, err := proto.Marshal(&a2apb.SendMessageRequest{Tenant: c.tenant})
		if err != nil {
			t.Fatal(err)
		}
		body := c.frame(msg)
		for _, base := range []string{"", "/agents/beta"} {
			r := httptest.NewRequest(http.MethodPost, base+"/lf.a2a.v1.A2AService/SendMessage", bytes.NewReader(body))
			r.ProtoMajor, r.ProtoMinor = 2, 0
			r.Header.Set("Content-Type", "application/grpc+proto")
			rec := Begin(r, srv)
			wantTenant, wantAgent := c.tenant, c.agent
			if body[0] != 0 {
				wantTenant = ""
			}
			if base != "" && wantAgent == "alpha" {
				wantAgent = "beta"
			}
			if !rec.GRPC || rec.RPCMethod != "SendMessage" || rec.Tenant != wantTenant || rec.Agent != wantAgent {
				t.Errorf("%s at %q: grpc %v method %q tenant %q agent %q; want SendMessage, tenant %q, agent %q", c.name, base+"/", rec.GRPC, rec.RPCMethod, rec.Tenant, rec.Agent, wantTenant, wantAgent)
			}
			if got := bodyOf(t, r); got != string(body) {
				t.Errorf("%s at %q: the call's body changed under Begin", c.name, base+"/")
			}
		}
	}
	// The same path over HTTP/1.1, or as an HTTP/2 GET, is no gRPC call to
	// the server, nor to its record.
	r := httptest.NewRequest(http.MethodPost, "/lf.a2a.v1.A2AService/SendMessage", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "application/grpc")
	if rec := Begin(r, srv); rec.GRPC || rec.RPCMethod != "" {
		t.Errorf("an HTTP/1.1 request taken for a gRPC call: %+v", rec)
	}
	r = httptest.NewRequest(http.MethodGet, "/agents/beta/lf.a2a.v1.A2AService/SendMessage", nil)
	r.ProtoMajor, r.ProtoMinor = 2, 0
	r.Header.Set("Content-Type", "application/grpc")
	if rec := Begin(r, srv); rec.GRPC || rec.RPCMethod != "" {
		t.Errorf("an HTTP/2 GET taken for a gRPC call: %+v", rec)
	}
}

// TestFinish: how each kind of answer is recorded at the end of its
// exchange.
func TestFinish(t *testing.T) {
	t.Parallel()
	long := bytes.Repeat([]byte("x"), judge.MaxDelivered+100)
	for _, c := range []struct {
		name    string
		answer  func(w http.ResponseWriter)
		under   http.ResponseWriter
		aborted bool
		want    judge.WireRecord
		// delivered is the body kept; nil for none.
		delivered []byte
	}{
		{"a whole JSON answer keeps no body", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}, nil, false, judge.WireRecord{Status: 200}, nil},
		{"no answer written is a 200", func(http.ResponseWriter) {}, nil, false, judge.WireRecord{Status: 200}, nil},
		{"the status and Retry-After of the first WriteHeader", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Header().Set("Retry-After", "9")
			w.WriteHeader(http.StatusOK)
		}, nil, false, judge.WireRecord{Status: 429, RetryAfter: "2"}, nil},
		{"a Retry-After set after the header is not the answer's", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Header().Set("Retry-After", "5")
		}, nil, false, judge.WireRecord{Status: 503}, nil},
		{"an unreadable JSON body is kept", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"task":`)
		}, nil, false, judge.WireRecord{Status: 200}, []byte(`{"jsonrpc":"2.0","id":1,"result":{"task":`)},
		{"an aborted handler is faulted, with what it wrote", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, "data: {}\n\n")
		}, nil, true, judge.WireRecord{Status: 200, Faulted: true}, []byte("data: {}\n\n")},
		{"an aborted handler that wrote nothing has no status", func(http.ResponseWriter) {}, nil, true, judge.WireRecord{Faulted: true}, nil},
		{"a failed write is faulted, the body bounded", func(w http.ResponseWriter) {
			_, _ = w.Write(long)
		}, &failing{ResponseRecorder: httptest.NewRecorder(), after: judge.MaxDelivered + 50}, false,
			judge.WireRecord{Status: 200, Faulted: true}, long[:judge.MaxDelivered]},
		{"a failed flush is faulted", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
		}, &failing{ResponseRecorder: httptest.NewRecorder(), after: 1 << 20, flushErr: true}, false,
			judge.WireRecord{Status: 200, Faulted: true}, []byte("data: 1\n\n")},
	} {
		under := c.under
		if under == nil {
			under = httptest.NewRecorder()
		}
		w := NewWriter(under)
		c.answer(w)
		rec := judge.WireRecord{Start: time.Now()}
		Finish(&rec, w, c.aborted)
		if rec.End.Before(rec.Start) {
			t.Errorf("%s: ends %v, before its start %v", c.name, rec.End, rec.Start)
		}
		rec.Start, rec.End = time.Time{}, time.Time{}
		c.want.Delivered = c.delivered
		if !equal(rec, c.want) {
			t.Errorf("%s:\ngot  %+v (delivered %q)\nwant %+v (delivered %q)", c.name, rec, rec.Delivered, c.want, c.want.Delivered)
		}
	}
}

// TestFinishGRPC: a gRPC call's status and retry pushback, from a
// trailers-only answer's headers or from the trailers.
func TestFinishGRPC(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		header       map[string]string
		status       int
		retryAfter   string
		wantDelivery bool
	}{
		{"trailers only", map[string]string{"Grpc-Status": "14", "Grpc-Retry-Pushback-Ms": "2500"}, 14, "2", false},
		{"trailers after messages", map[string]string{http.TrailerPrefix + "Grpc-Status": "8"}, 8, "", false},
		{"a negative pushback is none", map[string]string{"Grpc-Status": "14", "Grpc-Retry-Pushback-Ms": "-1"}, 14, "", false},
		{"OK", map[string]string{http.TrailerPrefix + "Grpc-Status": "0"}, 0, "", false},
		{"cut before its trailers", nil, 0, "", false},
	} {
		w := NewWriter(httptest.NewRecorder())
		for k, v := range c.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(http.StatusOK)
		rec := judge.WireRecord{GRPC: true}
		Finish(&rec, w, false)
		if rec.GRPCStatus != c.status || rec.RetryAfter != c.retryAfter || rec.Status != 200 {
			t.Errorf("%s: grpc status %d, retry after %q, HTTP %d; want %d, %q, 200", c.name, rec.GRPCStatus, rec.RetryAfter, rec.Status, c.status, c.retryAfter)
		}
		if rec.GRPCNoStatus != (c.header == nil) {
			t.Errorf("%s: GRPCNoStatus %v", c.name, rec.GRPCNoStatus)
		}
	}
}

// TestHijacked: an exchange whose connection the handler took over (a
// reset) is hijacked and faulted, with no status when it wrote none.
func TestHijacked(t *testing.T) {
	t.Parallel()
	mock := mockServer(t)
	recs := make(chan judge.WireRecord, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := Begin(r, mock)
		w := NewWriter(rw)
		c, _, err := w.Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
		} else {
			c.Close()
		}
		Finish(&rec, w, false)
		recs <- rec
	}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/agents/beta/", "application/json", strings.NewReader(`{"method":"SendMessage"}`))
	if err == nil {
		resp.Body.Close()
		t.Error("the reset call was answered")
	}
	rec := <-recs
	if !rec.Hijacked || !rec.Faulted || rec.Status != 0 || rec.Agent != "beta" || rec.RPCMethod != "SendMessage" {
		t.Errorf("a reset call recorded as %+v", rec)
	}
}

// TestCutWithoutConnection: a fault that cuts the answer asks for the
// connection; over HTTP/2 there is none to take (the writer below is no
// http.Hijacker), and the answer ends where it was cut. The exchange is
// faulted, not hijacked, and Delivered holds what was written before the
// cut.
func TestCutWithoutConnection(t *testing.T) {
	t.Parallel()
	w := NewWriter(httptest.NewRecorder())
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "\x00\x00\x00\x01\x00half a message")
	if _, _, err := w.Hijack(); !errors.Is(err, http.ErrNotSupported) {
		t.Fatalf("hijack over a writer with no connection: %v", err)
	}
	rec := judge.WireRecord{GRPC: true}
	Finish(&rec, w, false)
	if !rec.Faulted || rec.Hijacked || rec.Status != http.StatusOK || string(rec.Delivered) != "\x00\x00\x00\x01\x00half a message" {
		t.Errorf("an answer cut without a connection to take over recorded as %+v, delivered %q", rec, rec.Delivered)
	}
	cut := judge.WireRecord{GRPC: true}
	Cut(&cut, w, time.Now())
	if !cut.Faulted || cut.Hijacked {
		t.Errorf("cut at the exit: faulted %v, hijacked %v; want true, false", cut.Faulted, cut.Hijacked)
	}
}

// TestTakenOverEndsAtClose: the record of an exchange whose handler took
// the connection over ends when the handler closes it, which is when the
// client learns the answer's end (here, a reset), not when the handler
// returns: a client that exits on the reset, with the runner marking the
// exit (Exit) before the handler has returned, leaves a finished record,
// not one open at the exit, as when the handler was quicker. The close
// still resets the connection: the linger passes through.
func TestTakenOverEndsAtClose(t *testing.T) {
	t.Parallel()
	mock := mockServer(t)
	l := NewLog(10)
	closed, exited := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := NewWriter(rw)
		x := l.Start(Begin(r, mock), w)
		defer l.Finish(x, false)
		c, _, err := w.Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		if tc, ok := c.(interface{ SetLinger(int) error }); !ok || tc.SetLinger(0) != nil {
			t.Errorf("the connection taken over (%T) does not pass the linger on", c)
		}
		c.Close()
		close(closed)
		// The client has seen the reset; the handler returns only after
		// the runner marked the client's exit.
		<-exited
	}))
	defer srv.Close()
	_, err := http.Post(srv.URL+"/agents/beta/", "application/json", strings.NewReader(`{"method":"SendMessage"}`))
	if err == nil || !strings.Contains(err.Error(), "reset") {
		t.Errorf("the client got %v; want a connection reset", err)
	}
	<-closed
	l.Exit()
	close(exited)
	recs := l.Records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	if rec := recs[0]; rec.Open || !rec.Hijacked || !rec.Faulted || rec.Seq != 1 || rec.RPCMethod != "SendMessage" {
		t.Errorf("a reset the client saw before its exit recorded as %+v; want finished (not open), hijacked, faulted", rec)
	}
}

// TestLeft: an exchange whose client closed the connection before its
// handler returned is recorded open, with the body written by then, once;
// after the exit, as any other, it is not recorded again.
func TestLeft(t *testing.T) {
	t.Parallel()
	l := NewLog(10)
	w := NewWriter(httptest.NewRecorder())
	x := l.Start(judge.WireRecord{RPCMethod: "SendStreamingMessage"}, w)
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, "data: 1\n\n")
	l.Left(x)
	l.Finish(x, false)
	cut := NewWriter(httptest.NewRecorder())
	y := l.Start(judge.WireRecord{RPCMethod: "GetTask"}, cut)
	l.Exit()
	l.Left(y)
	recs := l.Records()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %+v", len(recs), recs)
	}
	if r := recs[0]; !r.Open || r.Faulted || r.Seq != 1 || r.Status != http.StatusOK || string(r.Delivered) != "data: 1\n\n" {
		t.Errorf("an exchange the client left recorded as %+v, delivered %q", r, r.Delivered)
	}
	if r := recs[1]; !r.Open || r.Seq != 2 || r.RPCMethod != "GetTask" {
		t.Errorf("the exchange open at the exit recorded as %+v", r)
	}
}

// TestCut: a stream cut while its handler goes on writing keeps what was
// written by the cut and is open; Finish, later, sees the whole answer.
func TestCut(t *testing.T) {
	t.Parallel()
	w := NewWriter(httptest.NewRecorder())
	first, cut, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: 1\n\n")
		w.Flush()
		close(first)
		<-cut
		for range 100 {
			_, _ = io.WriteString(w, "data: more\n\n")
		}
	}()
	<-first
	rec := judge.WireRecord{RPCMethod: "SendStreamingMessage"}
	at := time.Now()
	Cut(&rec, w, at)
	close(cut)
	// A second cut races the handler's writes (for the race detector).
	var again judge.WireRecord
	Cut(&again, w, at)
	<-done
	if !rec.Open || rec.Status != 200 || rec.Faulted || !rec.End.Equal(at) || string(rec.Delivered) != "data: 1\n\n" {
		t.Errorf("the stream cut after its first event: %+v (delivered %q)", rec, rec.Delivered)
	}
	whole := rec
	whole.Open, whole.Delivered = false, nil
	Finish(&whole, w, true)
	if whole.Open || !whole.Faulted || len(whole.Delivered) != len("data: 1\n\n")+100*len("data: more\n\n") {
		t.Errorf("Finish after the cut: %+v, %d bytes delivered", whole, len(whole.Delivered))
	}
	if string(rec.Delivered) != "data: 1\n\n" {
		t.Errorf("the cut record's body changed with later writes: %q", rec.Delivered)
	}

	// Cut before any answer: no status yet; a 429 header is kept.
	w = NewWriter(httptest.NewRecorder())
	var none judge.WireRecord
	Cut(&none, w, at)
	if !none.Open || none.Status != 0 || len(none.Delivered) != 0 {
		t.Errorf("a cut before any answer: %+v", none)
	}
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	var refused judge.WireRecord
	Cut(&refused, w, at)
	if refused.Status != 429 || refused.RetryAfter != "1" {
		t.Errorf("a cut after the header: %+v", refused)
	}
}

// TestLog: records are numbered as their exchanges end; Exit records the
// exchanges under way as they stand, in the order they started, and leaves
// out those begun later; the bound keeps the first records.
func TestLog(t *testing.T) {
	t.Parallel()
	l := NewLog(10)
	start := func(path string) (*Exchange, *Writer) {
		w := NewWriter(httptest.NewRecorder())
		return l.Start(judge.WireRecord{Path: path}, w), w
	}
	a, _ := start("/a")
	b, bw := start("/b")
	c, cw := start("/c")
	d, _ := start("/d")
	l.Finish(d, false)
	l.Finish(a, false)
	_, _ = io.WriteString(bw, "data: b\n\n")
	_, _ = io.WriteString(cw, "data: c\n\n")
	l.Exit()
	_, _ = io.WriteString(bw, "data: after\n\n")
	e, _ := start("/e")
	l.Finish(c, false)
	l.Finish(b, true)
	l.Finish(e, false)
	l.Exit()
	got := l.Records()
	var paths []string
	for i, r := range got {
		paths = append(paths, r.Path)
		if r.Seq != i+1 {
			t.Errorf("record %d (%s) is numbered %d", i, r.Path, r.Seq)
		}
	}
	if strings.Join(paths, " ") != "/d /a /b /c" {
		t.Fatalf("records %v, want /d /a /b /c (ended before the exit, then open at it in the order they started)", paths)
	}
	for _, r := range got[2:] {
		if !r.Open || r.Faulted || string(r.Delivered) != "data: "+r.Path[1:]+"\n\n" {
			t.Errorf("%s open at the exit: %+v (delivered %q)", r.Path, r, r.Delivered)
		}
	}
	if got[0].Open || got[1].Open {
		t.Errorf("exchanges ended before the exit recorded as open: %+v", got[:2])
	}
	got[0].Path = "changed"
	if l.Records()[0].Path != "/d" {
		t.Error("Records shares its slice with the log")
	}

	small := NewLog(2)
	for range 3 {
		x := small.Start(judge.WireRecord{}, NewWriter(httptest.NewRecorder()))
		small.Finish(x, false)
	}
	x := small.Start(judge.WireRecord{}, NewWriter(httptest.NewRecorder()))
	small.Exit()
	small.Finish(x, false)
	if rs := small.Records(); len(rs) != 2 || rs[1].Seq != 2 {
		t.Errorf("a log of 2 kept %+v", rs)
	}
}

// TestLogConcurrent: exchanges start, write and end while the exit is
// marked (for the race detector); each is recorded once at most.
func TestLogConcurrent(t *testing.T) {
	t.Parallel()
	l := NewLog(1000)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			w := NewWriter(httptest.NewRecorder())
			x := l.Start(judge.WireRecord{Path: "/"}, w)
			for range 10 {
				_, _ = io.WriteString(w, "data: x\n\n")
			}
			l.Finish(x, false)
		})
	}
	l.Exit()
	wg.Wait()
	rs := l.Records()
	if len(rs) > 50 {
		t.Errorf("%d records of 50 exchanges", len(rs))
	}
	for i, r := range rs {
		if r.Seq != i+1 {
			t.Errorf("record %d numbered %d", i, r.Seq)
		}
	}
}

// failing is a ResponseWriter whose writes fail past after bytes, and whose
// flushes fail when flushErr is set.
type failing struct {
	*httptest.ResponseRecorder
	after    int
	flushErr bool
}

func (f *failing) Write(b []byte) (int, error) {
	room := f.after - f.Body.Len()
	if room >= len(b) {
		return f.ResponseRecorder.Write(b)
	}
	n, _ := f.ResponseRecorder.Write(b[:max(room, 0)])
	return n, errors.New("broken pipe")
}

func (f *failing) FlushError() error {
	if f.flushErr {
		return errors.New("broken pipe")
	}
	return nil
}

func bodyOf(t *testing.T, r *http.Request) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// equal compares two records, Delivered included.
func equal(a, b judge.WireRecord) bool {
	same := bytes.Equal(a.Delivered, b.Delivered)
	a.Delivered, b.Delivered = nil, nil
	return same && reflect.DeepEqual(a, b)
}
