// Package wirerec turns one HTTP exchange between the client under test and
// a scenario's mock into the judge.WireRecord the checks read: what the
// request asked (its A2A-Version, its JSON-RPC or gRPC method, the tenant
// of a gRPC call) and how it was answered (status, Retry-After, whether the
// connection was taken over or a write failed, and the start of the body
// of an answer the client may not have read whole).
//
// It only reads an exchange; the mock of package conform serves it, keeps
// the records in order and numbers them.
package wirerec

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/server"
)

// maxPeek bounds the start of a request body read to find its method.
const maxPeek = 1 << 20

// maxDelivered bounds the body kept per exchange.
const maxDelivered = judge.MaxDelivered

// Server is how the server reads a request as it arrives, before it
// serves it: server.Server's methods of these names. The records name an
// exchange's agent, and a gRPC call's method and tenant, by the server's
// own rules, not copies of them, so that they and the journal cannot read
// one request differently.
type Server interface {
	// AgentOf names the agent the request is served or refused as.
	AgentOf(*http.Request) string
	// GRPCCall reports whether the server serves the request as a gRPC
	// call and reads it as the server routes it: its agent, method and
	// tenant. It reads the body, and leaves it reading whole.
	GRPCCall(*http.Request) (server.GRPCCall, bool)
}

// Begin starts the record of the exchange r, at its arrival: the agent
// the server serves or refuses it as (srv.AgentOf), its A2A-Version and,
// for a POST, the JSON-RPC method named at the start of its body, or for
// a gRPC call the method, agent and tenant the server reads it as
// (srv.GRPCCall). It reads the start of a POST's body, so it replaces
// r.Body with a body that still reads the whole. A gRPC call's body it
// does not read: the server's read keeps it, for the server, and a second
// read here held a second copy of it, up to 1 MiB, until the call ended.
func Begin(r *http.Request, srv Server) judge.WireRecord {
	rec := judge.WireRecord{Start: time.Now().UTC(), Conn: r.RemoteAddr, Method: r.Method, Path: r.URL.Path}
	if v := r.Header.Values("A2A-Version"); len(v) > 0 {
		rec.VersionSent, rec.A2AVersion = true, strings.Join(v, ",")
	} else if q := r.URL.Query(); q.Has("A2A-Version") {
		rec.VersionSent, rec.A2AVersion = true, q.Get("A2A-Version")
	}
	if c, ok := srv.GRPCCall(r); ok {
		// The tenant the request carries, which the checks compare with
		// the one the card declares (the agent it names is c.Agent).
		rec.GRPC, rec.Agent, rec.RPCMethod, rec.Tenant = true, c.Agent, c.Method, c.Tenant
		return rec
	}
	rec.Agent = srv.AgentOf(r)
	if r.Method != http.MethodPost || r.Body == nil {
		return rec
	}
	head, _ := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	var env struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(head, &env) == nil {
		rec.RPCMethod = env.Method
	}
	return rec
}

// Finish completes rec with how w answered it, at the end of the exchange;
// aborted is set when the handler panicked (a reset call over HTTP/2,
// http.ErrAbortHandler): the exchange is then faulted.
func Finish(rec *judge.WireRecord, w *Writer, aborted bool) {
	rec.End = time.Now().UTC()
	w.mu.Lock()
	rec.Status, rec.RetryAfter, rec.Hijacked = w.status, w.retryAfter, w.hijacked
	rec.Faulted = w.takenOver || w.writeErr || aborted
	rec.Request, rec.JournalSeq = w.reqNo, w.seq
	body := w.body
	w.mu.Unlock()
	if rec.Status == 0 && !rec.Hijacked && !aborted {
		rec.Status = http.StatusOK
	}
	if rec.GRPC {
		grpcOutcome(rec, w.Header())
	}
	if rec.Faulted || judge.Unreadable(body) {
		rec.Delivered = body
	}
}

// Cut completes rec for an exchange still open at the moment at (the
// client's exit), with what w had been answered by then: its status (0
// when none was written yet), Retry-After, whether it was taken over or a
// write had failed, and the body written so far as Delivered. It sets Open
// and ends the record at at. A gRPC call's status comes in its trailers,
// at its end, so an open call has none (GRPCStatus 0). It may be called
// while the handler still writes through w; what w is written later is not
// the record's.
func Cut(rec *judge.WireRecord, w *Writer, at time.Time) {
	rec.End, rec.Open = at.UTC(), true
	w.mu.Lock()
	defer w.mu.Unlock()
	rec.Status, rec.RetryAfter, rec.Hijacked = w.status, w.retryAfter, w.hijacked
	rec.Faulted = w.takenOver || w.writeErr
	rec.Request, rec.JournalSeq = w.reqNo, w.seq
	rec.Delivered = bytes.Clone(w.body)
}

// grpcOutcome notes a gRPC call's status, from the headers of a
// trailers-only answer or the trailers after messages, and its retry
// pushback as a Retry-After in whole seconds.
func grpcOutcome(rec *judge.WireRecord, h http.Header) {
	code := cmp.Or(h.Get("Grpc-Status"), h.Get(http.TrailerPrefix+"Grpc-Status"))
	rec.GRPCStatus, _ = strconv.Atoi(code)
	rec.GRPCNoStatus = code == ""
	if ms, err := strconv.Atoi(h.Get("Grpc-Retry-Pushback-Ms")); err == nil && ms >= 0 {
		rec.RetryAfter = strconv.Itoa(ms / 1000)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Writer is the http.ResponseWriter the mock's handler answers through: it
// notes the status and Retry-After of an answer, whether it was cut, and
// keeps the start of the body; Unwrap lets http.ResponseController reach
// the connection's flusher and hijacker. What it notes may be read (Cut)
// while the handler writes.
type Writer struct {
	http.ResponseWriter
	mu         sync.Mutex
	status     int
	retryAfter string
	hijacked   bool
	// takenOver is set once the handler asked for the connection, whether
	// or not it got it (see Hijack).
	takenOver bool
	writeErr  bool
	// body only grows: a slice of it taken under mu stays as it was.
	body []byte
	// closing, when set, runs as the handler closes a connection it took
	// over, before the close (Log.Start sets it).
	closing func()
	// reqNo and seq join the exchange to the journal (TagExchange).
	reqNo, seq int64
}

// TagExchange notes the journal's number of the A2A request the exchange
// carried, or (reqNo 0) the seq of the card or JWKS entry it produced: the
// server tells every writer in front of its own that asks
// (server/internal/wirecap's ExchangeTagger), once it has journaled it.
func (w *Writer) TagExchange(reqNo, seq int64) {
	w.mu.Lock()
	w.reqNo, w.seq = reqNo, seq
	w.mu.Unlock()
}

// NewWriter returns a Writer over w.
func NewWriter(w http.ResponseWriter) *Writer { return &Writer{ResponseWriter: w} }

// WriteHeader implements http.ResponseWriter.
func (w *Writer) WriteHeader(code int) {
	w.mu.Lock()
	if w.status == 0 {
		w.status = code
		w.retryAfter = w.Header().Get("Retry-After")
	}
	w.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

// answering writes the 200 header of an answer whose handler wrote none.
func (w *Writer) answering() {
	w.mu.Lock()
	none := w.status == 0
	w.mu.Unlock()
	if none {
		w.WriteHeader(http.StatusOK)
	}
}

// Write implements http.ResponseWriter.
func (w *Writer) Write(b []byte) (int, error) {
	w.answering()
	n, err := w.ResponseWriter.Write(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.writeErr = true
	}
	if len(w.body) < maxDelivered {
		w.body = append(w.body, b[:min(n, maxDelivered-len(w.body))]...)
	}
	return n, err
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher for code that asserts it directly.
func (w *Writer) Flush() {
	w.answering()
	if http.NewResponseController(w.ResponseWriter).Flush() != nil {
		w.mu.Lock()
		w.writeErr = true
		w.mu.Unlock()
	}
}

// Hijack implements http.Hijacker for the transport-fault behaviors. The
// server asks for the connection only to cut its answer (a reset, a
// truncated body: faultwriter.Cut), and from then on writes nothing more,
// whether it got the connection or not: over HTTP/2 there is none to take
// (http.ErrNotSupported), and the answer, a gRPC call's message among
// them, ends where it was cut, without trailers. Either way the answer did
// not reach the client whole: the exchange is faulted, and Delivered holds
// what was written before the cut. Hijacked says whether the connection
// itself was taken over.
//
// The connection it returns runs closing (Log.Start's) before it closes:
// the close ends the answer as the client sees it (a reset, the end of a
// cut body), and a client that exits on seeing it may do so before the
// handler returns, so the exchange's record ends there, before the client
// can learn of it, and not when the handler returns.
func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, b, err := http.NewResponseController(w.ResponseWriter).Hijack()
	w.mu.Lock()
	w.takenOver = true
	w.hijacked = err == nil
	closing := w.closing
	w.mu.Unlock()
	if err != nil || closing == nil {
		return c, b, err
	}
	return &takenConn{Conn: c, closing: closing}, b, nil
}

// takenConn is a connection a handler took over: Close runs closing first,
// once.
type takenConn struct {
	net.Conn
	once    sync.Once
	closing func()
}

// Close implements net.Conn.
func (c *takenConn) Close() error {
	c.once.Do(c.closing)
	return c.Conn.Close()
}

// SetLinger passes the linger (a reset's 0) to a TCP connection.
func (c *takenConn) SetLinger(sec int) error {
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		return tc.SetLinger(sec)
	}
	return nil
}
