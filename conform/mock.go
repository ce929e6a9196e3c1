package conform

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
)

// WireRecord is one HTTP exchange the client had with the mock, as the
// checks judge it (judge.WireRecord).
type WireRecord = judge.WireRecord

// mock is one scenario's server, served behind the wire recorder on its own
// listener.
type mock struct {
	srv    *server.Server
	hs     *http.Server
	url    string
	first  string
	cancel context.CancelFunc
	served chan struct{}

	// changer makes the scenario's card change, if it has one.
	changer *cardChanger
	// ready is closed at the first request; firstAt is when.
	ready     chan struct{}
	readyOnce sync.Once
	firstAt   time.Time

	handlers sync.WaitGroup
	mu       sync.Mutex
	seq      int
	wire     []WireRecord
}

// maxWireRecords bounds the exchanges kept per scenario (a client that
// floods the mock is judged on the first ones; Seq keeps counting).
const maxWireRecords = 50_000

func startMock(cfg server.Config, change *CardChange) (*mock, error) {
	srv, err := server.New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &mock{srv: srv, url: "http://" + ln.Addr().String(), cancel: cancel, served: make(chan struct{}), ready: make(chan struct{})}
	if names := srv.AgentNames(); len(names) > 0 {
		m.first = names[0]
	}
	if change != nil {
		m.changer = &cardChanger{change: change, srv: srv}
	}
	m.hs = &http.Server{
		Handler:           http.HandlerFunc(m.record),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	srv.ServeGRPCWith(m.hs)
	go func() {
		defer close(m.served)
		_ = m.hs.Serve(ln)
	}()
	return m, nil
}

// agentURL is the base URL of the named agent.
func (m *mock) agentURL(name string) string { return m.url + m.srv.AgentPath(name) }

// close stops the server: open streams end, players stop, every
// connection is closed, and it returns when every handler has returned (or
// after 5s, reported as an error: a handler that outlives its server is a
// bug of a2amock, not of the client).
func (m *mock) close() error {
	m.cancel()
	err := m.srv.Close()
	_ = m.hs.Close()
	<-m.served
	done := make(chan struct{})
	go func() { m.handlers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		err = errors.Join(err, errors.New("conform: a mock handler did not return within 5s of shutdown"))
	}
	return err
}

// firstRequest returns when the first request arrived (zero before).
func (m *mock) firstRequest() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.firstAt
}

// wireLog returns a copy of the wire records, in arrival order.
func (m *mock) wireLog() []WireRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]WireRecord, len(m.wire))
	copy(out, m.wire)
	return out
}

const maxPeek = 1 << 20

func (m *mock) record(w http.ResponseWriter, r *http.Request) {
	m.handlers.Add(1)
	defer m.handlers.Done()
	m.readyOnce.Do(func() {
		m.mu.Lock()
		m.firstAt = time.Now()
		m.mu.Unlock()
		close(m.ready)
	})
	rec := WireRecord{Start: time.Now().UTC(), Conn: r.RemoteAddr, Method: r.Method, Path: r.URL.Path, Agent: m.agentOf(r.URL.Path)}
	if v := r.Header.Values("A2A-Version"); len(v) > 0 {
		rec.VersionSent, rec.A2AVersion = true, strings.Join(v, ",")
	} else if q := r.URL.Query(); q.Has("A2A-Version") {
		rec.VersionSent, rec.A2AVersion = true, q.Get("A2A-Version")
	}
	method, isGRPC := grpcMethod(r)
	if (isGRPC || r.Method == http.MethodPost) && r.Body != nil {
		head, _ := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		if isGRPC {
			rec.RPCMethod, rec.GRPC = method, true
			// Every agent shares the gRPC endpoint: the tenant of the
			// request names the agent (none: the root, the first).
			rec.Tenant = grpcTenant(method, head)
			if rec.Tenant != "" && m.srv.Card(rec.Tenant) != nil {
				rec.Agent = rec.Tenant
			}
		} else {
			var env struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(head, &env) == nil {
				rec.RPCMethod = env.Method
			}
		}
	}
	m.changer.observe(rec)
	rw := &recordingWriter{ResponseWriter: w}
	// A handler that resets the call (RST_STREAM over HTTP/2) panics with
	// http.ErrAbortHandler: the exchange is still recorded, as faulted,
	// and the panic goes on to the server.
	aborted := true
	defer func() { m.finish(rec, rw, aborted) }()
	m.srv.Handler().ServeHTTP(rw, r)
	aborted = false
}

// finish completes the record of an exchange and keeps it.
func (m *mock) finish(rec WireRecord, rw *recordingWriter, aborted bool) {
	rec.End = time.Now().UTC()
	rec.Status, rec.RetryAfter, rec.Hijacked = rw.status, rw.retryAfter, rw.hijacked
	rec.Faulted = rw.hijacked || rw.writeErr || aborted
	if rec.Status == 0 && !rw.hijacked && !aborted {
		rec.Status = http.StatusOK
	}
	if rec.GRPC {
		grpcOutcome(&rec, rw.Header())
	}
	if rec.Faulted || judge.Unreadable(rw.body) {
		rec.Delivered = rw.body
	}
	m.mu.Lock()
	m.seq++
	rec.Seq = m.seq
	if len(m.wire) < maxWireRecords {
		m.wire = append(m.wire, rec)
	}
	m.mu.Unlock()
}

// grpcOutcome notes a gRPC call's status, from the headers of a
// trailers-only answer or the trailers after messages, and its retry
// pushback as a Retry-After in whole seconds.
func grpcOutcome(rec *WireRecord, h http.Header) {
	code := cmp.Or(h.Get("Grpc-Status"), h.Get(http.TrailerPrefix+"Grpc-Status"))
	rec.GRPCStatus, _ = strconv.Atoi(code)
	if ms, err := strconv.Atoi(h.Get("Grpc-Retry-Pushback-Ms")); err == nil && ms >= 0 {
		rec.RetryAfter = strconv.Itoa(ms / 1000)
	}
}

func (m *mock) agentOf(path string) string {
	if rest, ok := strings.CutPrefix(path, "/agents/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	return m.first
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recordingWriter notes the status and Retry-After of an answer, whether
// it was cut, and keeps the start of the body; Unwrap lets
// http.ResponseController reach the connection's flusher and hijacker.
type recordingWriter struct {
	http.ResponseWriter
	status     int
	retryAfter string
	hijacked   bool
	writeErr   bool
	body       []byte
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.retryAfter = w.Header().Get("Retry-After")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		w.writeErr = true
	}
	if len(w.body) < maxDelivered {
		w.body = append(w.body, b[:min(n, maxDelivered-len(w.body))]...)
	}
	return n, err
}

// maxDelivered bounds the body kept per exchange.
const maxDelivered = judge.MaxDelivered

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher for code that asserts it directly.
func (w *recordingWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if http.NewResponseController(w.ResponseWriter).Flush() != nil {
		w.writeErr = true
	}
}

// Hijack implements http.Hijacker for the transport-fault behaviors.
func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, b, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, b, err
}

// grpcMethod returns the method of a gRPC call (SendMessage for POST
// /lf.a2a.v1.A2AService/SendMessage).
func grpcMethod(r *http.Request) (string, bool) {
	if r.ProtoMajor != 2 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		return "", false
	}
	_, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	return method, true
}

// grpcTenant returns the tenant of a gRPC call's request message (body is
// the length-prefixed message), "" when it has none or does not decode.
func grpcTenant(method string, body []byte) string {
	compressed, b, _, ok := a2apb.NextMessage(body)
	md := a2apb.Method(method)
	if !ok || compressed || md == nil {
		return ""
	}
	msg := dynamicpb.NewMessage(md.Input())
	if proto.Unmarshal(b, msg) != nil {
		return ""
	}
	f := md.Input().Fields().ByName("tenant")
	if f == nil {
		return ""
	}
	return msg.Get(f).String()
}
