package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/conform/internal/judge"
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
	rec := WireRecord{Start: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Agent: m.agentOf(r.URL.Path)}
	if v := r.Header.Values("A2A-Version"); len(v) > 0 {
		rec.VersionSent, rec.A2AVersion = true, strings.Join(v, ",")
	} else if q := r.URL.Query(); q.Has("A2A-Version") {
		rec.VersionSent, rec.A2AVersion = true, q.Get("A2A-Version")
	}
	if r.Method == http.MethodPost && r.Body != nil {
		head, _ := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		var env struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(head, &env) == nil {
			rec.RPCMethod = env.Method
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	}
	m.changer.observe(rec)
	rw := &recordingWriter{ResponseWriter: w}
	m.srv.Handler().ServeHTTP(rw, r)
	rec.End = time.Now().UTC()
	rec.Status, rec.RetryAfter, rec.Hijacked = rw.status, rw.retryAfter, rw.hijacked
	rec.Faulted = rw.hijacked || rw.writeErr
	if rec.Status == 0 && !rw.hijacked {
		rec.Status = http.StatusOK
	}
	if rec.Faulted {
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
const maxDelivered = 16 << 10

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
