package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2amock/a2amock/record/internal/cardlink"
	"github.com/a2amock/a2amock/sse"
)

// ProxyOptions configure a Proxy.
type ProxyOptions struct {
	// Client sends the requests upstream; nil uses a client of its own
	// (no timeout, since streams stay open as long as the agent wants).
	Client *http.Client
	// MaxBodyBytes bounds request bodies and non-stream answers; 0 means
	// 16 MiB.
	MaxBodyBytes int64
	// KeepCredentials keeps credentials in the recording; by default
	// Recording redacts them (see Redact), since recordings are meant to
	// be committed.
	KeepCredentials bool
}

// Proxy is a transparent A2A proxy that records what passes through it. It
// is an http.Handler; serve it on any address and point clients at it.
type Proxy struct {
	upstream *url.URL
	client   *http.Client
	own      *http.Transport
	limit    int64
	start    time.Time
	keepCred bool

	// stopping is set by Stop: streams cut from then on were cut by the
	// proxy's end, not by their clients.
	stopping atomic.Bool

	mu    sync.Mutex
	slots []*slot
	// grpcHost is the GRPC interface address of the last card the
	// upstream served (grpcTarget).
	grpcHost string
	// grpcTr carries gRPC calls upstream (grpcTransport).
	grpcTr *http.Transport
}

// slot keeps an exchange's place in arrival order while it is in flight.
// x is the handler's own until done; what Recording may read of an
// exchange in flight is published under Proxy.mu: head, the request alone
// until an answer begins (an unanswered exchange) and the exchange as it
// stood when a stream began after that, and events, those the stream
// carried so far (appending never changes the elements already there, so
// sharing the slice is safe).
type slot struct {
	x      Exchange
	done   bool
	head   *Exchange
	events []Event
}

// streaming publishes that x, sl's exchange, is now a stream (or a gRPC
// call whose message has passed before its status), so that a Recording
// taken before it ends keeps what it carried (EndOpen). sl is nil for
// what is not recorded.
func (p *Proxy) streaming(sl *slot, x *Exchange) {
	if sl == nil {
		return
	}
	head := *x
	head.Events = nil
	p.mu.Lock()
	sl.head = &head
	p.mu.Unlock()
}

// carried publishes the events a stream of sl has carried so far.
func (p *Proxy) carried(sl *slot, events []Event) {
	if sl == nil {
		return
	}
	p.mu.Lock()
	sl.events = events
	p.mu.Unlock()
}

// hopHeaders are connection-level headers a proxy must not forward
// (RFC 9110 §7.6.1), plus Accept-Encoding: the Go transport then asks
// for gzip itself and hands back decoded bodies, which the recording needs.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Accept-Encoding"}

// endToEnd copies the headers of from into to but the hop-by-hop ones,
// which belong to the connection they came on.
func endToEnd(to, from http.Header) {
	for k, vs := range from {
		to[k] = append([]string(nil), vs...)
	}
	for _, h := range hopHeaders {
		to.Del(h)
	}
}

// NewProxy returns a proxy to the agent at upstream. A path in upstream is
// the agent's base: a request for /x is sent to upstream's path + /x.
func NewProxy(upstream *url.URL, opts ProxyOptions) *Proxy {
	p := &Proxy{upstream: upstream, client: opts.Client, limit: opts.MaxBodyBytes, start: time.Now(), keepCred: opts.KeepCredentials}
	if p.limit <= 0 {
		p.limit = 16 << 20
	}
	if p.client == nil {
		p.own = http.DefaultTransport.(*http.Transport).Clone()
		p.client = &http.Client{Transport: p.own}
	}
	p.grpcTr = p.grpcTransport()
	return p
}

// Close releases the proxy's idle upstream connections.
func (p *Proxy) Close() {
	if p.own != nil {
		p.own.CloseIdleConnections()
	}
	p.grpcTr.CloseIdleConnections()
}

// Stop says the recording is ending: a stream cut from now on, as the
// server the proxy runs on shuts down and closes its connections, is
// recorded as still open (EndOpen), which it was as far as the agent and
// the client were concerned, rather than as left by its client. Call it
// before shutting the server down.
func (p *Proxy) Stop() { p.stopping.Store(true) }

// clientGone is how a stream cut on the client's side ended: by the client
// (EndClientGone), or by the proxy's end after Stop (EndOpen).
func (p *Proxy) clientGone() StreamEnd {
	if p.stopping.Load() {
		return EndOpen
	}
	return EndClientGone
}

// Recording returns the exchanges completed so far, in the order their
// requests arrived, with credentials redacted unless
// ProxyOptions.KeepCredentials. A stream still open is included with what
// it carried so far, ending EndOpen now, and so is a unary gRPC call whose
// message has passed but not its status (the trailers); a request still
// waiting for its answer with no answer (Status 0, Exchange.Unanswered).
func (p *Proxy) Recording() *Recording {
	p.mu.Lock()
	rec := &Recording{Version: FormatVersion, Upstream: redactURL(p.upstream.String()), Exchanges: []Exchange{}}
	if p.keepCred {
		rec.Upstream = p.upstream.String()
	}
	now := Duration(time.Since(p.start))
	for _, s := range p.slots {
		switch {
		case s.done:
			rec.Exchanges = append(rec.Exchanges, s.x)
		case s.head != nil && s.head.Unanswered():
			rec.Exchanges = append(rec.Exchanges, *s.head)
		case s.head != nil:
			x := *s.head
			x.Events = slices.Clone(s.events)
			x.End, x.EndAfter, x.Tail = EndOpen, now-x.At, ""
			rec.Exchanges = append(rec.Exchanges, x)
		}
	}
	p.mu.Unlock()
	if p.keepCred {
		return rec
	}
	return Redact(rec)
}

func (p *Proxy) target(r *http.Request) *url.URL {
	u := *p.upstream
	u.Path = strings.TrimRight(p.upstream.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	u.Fragment = ""
	return &u
}

// upstreamError is the text of an error about the upstream request with
// the URL it names redacted, as the recording names the upstream:
// net/http masks a password there, but not a user name that is a token,
// nor the query (an API key). Redacted even with KeepCredentials: the text
// is no recording, it goes to the client and its logs.
func upstreamError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		shown := *ue
		shown.URL = redactURL(ue.URL)
		return shown.Error()
	}
	return err.Error()
}

func proxyError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ServeHTTP forwards one request and records the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if IsGRPC(r) {
		p.serveGRPC(w, r)
		return
	}
	begin := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, p.limit+1))
	if err != nil {
		proxyError(w, http.StatusBadRequest, "read request body: "+err.Error())
		return
	}
	if int64(len(body)) > p.limit {
		proxyError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", p.limit))
		return
	}
	// The control API of an upstream a2amock is passed through but is not
	// part of the agent's behavior, so it is not recorded.
	recorded := !strings.HasPrefix(r.URL.Path, ControlPrefix)
	kind, method, _ := Classify(r.Method, r.URL.Path, body)
	var sl *slot
	if recorded {
		sl = &slot{x: Exchange{Kind: kind, Method: method, HTTPMethod: r.Method, Path: r.URL.RequestURI(),
			At: Duration(begin.Sub(p.start))}}
		if json.Valid(body) {
			sl.x.Request = compact(body)
		}
		p.arrived(sl)
		defer p.finished(sl)
	}
	x := &Exchange{}
	if sl != nil {
		x = &sl.x
	}

	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target(r).String(), bytes.NewReader(body))
	if err != nil {
		proxyError(w, http.StatusBadGateway, "build upstream request: "+upstreamError(err))
		return
	}
	endToEnd(out.Header, r.Header)
	resp, err := p.client.Do(out)
	if err != nil {
		if p.cutByStop(r) {
			// The agent had not answered when the recording ended: kept
			// unanswered (Status 0), as it stands, and the client's
			// request is cut rather than answered by the proxy.
			panic(http.ErrAbortHandler)
		}
		// Not an answer of the agent: nothing to replay.
		p.drop(sl)
		proxyError(w, http.StatusBadGateway, "upstream: "+upstreamError(err))
		return
	}
	defer resp.Body.Close()
	x.Status = resp.StatusCode
	x.ContentType = resp.Header.Get("Content-Type")
	x.HeadersAfter = Duration(time.Since(begin))
	endToEnd(w.Header(), resp.Header)
	w.Header().Del("Content-Length")

	if isEventStream(x.ContentType) {
		p.stream(w, r, resp, sl, x, begin)
		return
	}
	rb, err := io.ReadAll(io.LimitReader(resp.Body, p.limit+1))
	if err != nil || int64(len(rb)) > p.limit {
		p.drop(sl)
		proxyError(w, http.StatusBadGateway, "upstream answer unreadable or larger than the limit")
		return
	}
	if json.Valid(rb) && len(bytes.TrimSpace(rb)) > 0 {
		x.Response = compact(rb)
	} else {
		x.Body = string(rb)
	}
	send := rb
	if card, inResult := IsCardAnswer(kind, method, r.URL.Path); card && resp.StatusCode == http.StatusOK {
		p.learnGRPC(rb, inResult)
		send = cardlink.Rewrite(rb, inResult, p.upstream.Path, Origin(r))
	}
	// Done before the client can read the answer, so that a Recording
	// taken from then on has it.
	p.finished(sl)
	w.WriteHeader(resp.StatusCode)
	if r.Method != http.MethodHead {
		_, _ = w.Write(send)
	}
}

// arrived takes sl, a request just read, into the recording in arrival
// order, published as unanswered until an answer begins.
func (p *Proxy) arrived(sl *slot) {
	asked := sl.x
	sl.head = &asked
	p.mu.Lock()
	p.slots = append(p.slots, sl)
	p.mu.Unlock()
}

// finished marks sl's exchange complete: the handler no longer changes it.
func (p *Proxy) finished(sl *slot) {
	if sl == nil {
		return
	}
	p.mu.Lock()
	sl.done = true
	p.mu.Unlock()
}

// cutByStop reports whether r's upstream call failed because the
// recording ended under it (Stop, then the server's shutdown closing the
// client's connection), rather than because the agent could not be reached.
func (p *Proxy) cutByStop(r *http.Request) bool {
	return p.stopping.Load() && r.Context().Err() != nil
}

func (p *Proxy) drop(sl *slot) {
	if sl == nil {
		return
	}
	p.mu.Lock()
	for i, s := range p.slots {
		if s == sl {
			p.slots = append(p.slots[:i], p.slots[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
}

// stream passes an SSE answer through byte for byte, flushing every chunk
// as it arrives, while parsing a copy to record the events.
func (p *Proxy) stream(w http.ResponseWriter, r *http.Request, resp *http.Response, sl *slot, x *Exchange, begin time.Time) {
	rc := http.NewResponseController(w)
	w.WriteHeader(resp.StatusCode)
	_ = rc.Flush()
	fw := &flushWriter{w: w, rc: rc}
	lastID := ""
	x.End = EndEOF
	p.streaming(sl, x)
	rf := &recordFirst{from: resp.Body, to: fw}
	defer rf.pass()
	for ev, err := range sse.Read(r.Context(), rf) {
		if err != nil {
			var te *sse.TruncatedError
			switch {
			case r.Context().Err() != nil || fw.err != nil:
				x.End = p.clientGone()
			case errors.As(err, &te):
				x.End, x.Tail = EndTruncated, string(te.Tail)
			default:
				x.End = EndError
			}
			break
		}
		rev := Event{After: Duration(time.Since(begin)), Name: ev.Name}
		if ev.ID != lastID {
			rev.ID, lastID = ev.ID, ev.ID
		}
		if json.Valid(ev.Data) && len(bytes.TrimSpace(ev.Data)) > 0 {
			rev.Data = compact(ev.Data)
		} else {
			rev.Text = string(ev.Data)
		}
		x.Events = append(x.Events, rev)
		p.carried(sl, x.Events)
	}
	x.EndAfter = Duration(time.Since(begin))
}

// recordFirst is an upstream stream as the recorder reads it: each chunk
// is passed on to the client only when the recorder asks for the next one,
// which it does once it has recorded every event the chunk completed, so a
// Recording taken at any moment holds every event its client has read. The
// bytes themselves pass on unchanged and in the agent's chunks.
type recordFirst struct {
	from    io.Reader
	to      io.Writer
	pending []byte
}

func (r *recordFirst) Read(p []byte) (int, error) {
	if err := r.pass(); err != nil {
		return 0, err
	}
	n, err := r.from.Read(p)
	// A copy: the reader's buffer is its own again once Read returns.
	r.pending = append(r.pending[:0], p[:n]...)
	return n, err
}

// pass passes on the chunk read last; called once more when the recorder
// has stopped reading, for what it read but did not ask past (the bytes of
// a frame cut by the agent).
func (r *recordFirst) pass() error {
	if len(r.pending) == 0 {
		return nil
	}
	_, err := r.to.Write(r.pending)
	r.pending = r.pending[:0]
	return err
}

// flushWriter flushes after every write so each event reaches the client
// as soon as the agent sent it. It remembers the first error: the client
// has gone.
type flushWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

func (f *flushWriter) Write(b []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(b)
	if err == nil {
		err = f.rc.Flush()
	}
	f.err = err
	return n, err
}

// holdLast passes on all but the last heldBytes written to it, which the
// caller writes once the body has ended. heldBytes is below net/http's
// HTTP/2 response buffer (4 KiB), so that their write stays in it, however
// full: that buffer holds a write no larger than it, after sending what it
// held if both do not fit.
type holdLast struct {
	w    io.Writer
	tail []byte
}

const heldBytes = 1 << 10

func (h *holdLast) Write(b []byte) (int, error) {
	h.tail = append(h.tail, b...)
	if n := len(h.tail) - heldBytes; n > 0 {
		if _, err := h.w.Write(h.tail[:n]); err != nil {
			return 0, err
		}
		h.tail = append(h.tail[:0], h.tail[n:]...)
	}
	return len(b), nil
}

func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && strings.EqualFold(mt, "text/event-stream")
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append(json.RawMessage(nil), b...)
	}
	return buf.Bytes()
}
