package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/sse"
)

// Fault is a fault a Splice injects into replayed streams.
type Fault string

// The faults.
const (
	// FaultEndStream sends events 0..N-1, then closes the stream with no
	// further event.
	FaultEndStream Fault = "end-stream"
	// FaultDrop leaves out event N and sends the rest.
	FaultDrop Fault = "drop"
	// FaultHang sends events 0..N-1, then sends nothing more and keeps the
	// stream open until the client leaves.
	FaultHang Fault = "hang"
)

// Splice injects Fault at event At (counted from 0) of every replayed
// stream. A stream with fewer events is replayed unchanged.
type Splice struct {
	At    int
	Fault Fault
}

// ParseSplice parses "N:fault", e.g. "2:end-stream", "0:drop", "3:hang".
func ParseSplice(s string) (*Splice, error) {
	n, f, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return nil, fmt.Errorf("splice %q: use N:end-stream, N:drop or N:hang (N counts events from 0)", s)
	}
	at, err := strconv.Atoi(n)
	if err != nil || at < 0 {
		return nil, fmt.Errorf("splice %q: %q is not an event number (0, 1, ...)", s, n)
	}
	switch Fault(f) {
	case FaultEndStream, FaultDrop, FaultHang:
	default:
		return nil, fmt.Errorf("splice %q: fault %q: use end-stream, drop or hang", s, f)
	}
	return &Splice{At: at, Fault: Fault(f)}, nil
}

// ReplayOptions configure a Replayer.
type ReplayOptions struct {
	// Speed divides every recorded delay: 1 replays in recorded time, 2
	// twice as fast; 0 replays without waiting.
	Speed float64
	// Splice, when set, injects a fault into every replayed stream.
	Splice *Splice
	// ControlToken, when set, is the bearer token the control endpoints
	// (/_a2amock/journal, /_a2amock/healthz, /_a2amock/reset) require;
	// when empty they answer loopback clients only, as package server's do.
	ControlToken string
	// MaxBodyBytes bounds request bodies; 0 means 4 MiB.
	MaxBodyBytes int64
}

// JournalEntry is one answered request of a replay.
type JournalEntry struct {
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"time"`
	Kind   Kind      `json:"kind"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Exchange is the index of the recorded exchange replayed, -1 when the
	// request had no recorded counterpart.
	Exchange int `json:"exchange"`
	// Repeated is set when the recorded exchanges of this kind were used
	// up and the last one was replayed again.
	Repeated bool   `json:"repeated,omitempty"`
	Status   int    `json:"status"`
	Events   int    `json:"events,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// Replayer serves a Recording as a fake agent. It is an http.Handler.
type Replayer struct {
	rec      *Recording
	opts     ReplayOptions
	fromPath string
	byKey    map[string][]int

	ctx  context.Context // canceled by Close: ends held streams
	stop context.CancelFunc

	mu      sync.Mutex
	next    map[string]int
	journal []JournalEntry
	seq     int64
}

// NewReplayer returns a handler replaying rec.
func NewReplayer(rec *Recording, opts ReplayOptions) (*Replayer, error) {
	if rec == nil {
		return nil, fmt.Errorf("record: nil recording")
	}
	if err := rec.validate(); err != nil {
		return nil, err
	}
	if opts.Speed < 0 {
		return nil, fmt.Errorf("record: speed %v is negative", opts.Speed)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	rp := &Replayer{rec: rec, opts: opts, byKey: map[string][]int{}, next: map[string]int{}}
	if u, err := url.Parse(rec.Upstream); err == nil {
		rp.fromPath = u.Path
	}
	for i, x := range rec.Exchanges {
		k := key(x.Kind, x.Method)
		rp.byKey[k] = append(rp.byKey[k], i)
	}
	rp.ctx, rp.stop = context.WithCancel(context.Background())
	return rp, nil
}

// Close ends streams held open (FaultHang, recorded client-gone ends); call
// it before shutting down the HTTP server that serves the Replayer.
func (rp *Replayer) Close() { rp.stop() }

// Journal returns what the replay answered so far, oldest first.
func (rp *Replayer) Journal() []JournalEntry {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]JournalEntry(nil), rp.journal...)
}

// Reset rewinds every method to its first recorded exchange and clears the
// journal.
func (rp *Replayer) Reset() {
	rp.mu.Lock()
	rp.next, rp.journal, rp.seq = map[string]int{}, nil, 0
	rp.mu.Unlock()
}

func key(k Kind, method string) string { return string(k) + " " + method }

// pick returns the next recorded exchange of this kind, or the last one
// again when they are used up (a client polling GetTask keeps seeing the
// final state), or -1.
func (rp *Replayer) pick(k string) (int, bool) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	idx := rp.byKey[k]
	if len(idx) == 0 {
		return -1, false
	}
	n := rp.next[k]
	if n >= len(idx) {
		return idx[len(idx)-1], true
	}
	rp.next[k] = n + 1
	return idx[n], false
}

func (rp *Replayer) log(e JournalEntry) {
	rp.mu.Lock()
	rp.seq++
	e.Seq, e.Time = rp.seq, time.Now().UTC()
	rp.journal = append(rp.journal, e)
	rp.mu.Unlock()
}

// wait sleeps the recorded delay d (scaled) measured from begin; false
// when the client left or the replayer closed first.
func (rp *Replayer) wait(ctx context.Context, begin time.Time, d Duration) bool {
	if rp.opts.Speed == 0 {
		return ctx.Err() == nil
	}
	left := time.Until(begin.Add(time.Duration(float64(d) / rp.opts.Speed)))
	if left <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-rp.ctx.Done():
		return false
	}
}

// ServeHTTP answers one request from the recording.
func (rp *Replayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	begin := time.Now()
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		rp.control(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, rp.opts.MaxBodyBytes+1))
	if err != nil || int64(len(body)) > rp.opts.MaxBodyBytes {
		proxyError(w, http.StatusRequestEntityTooLarge, "request body unreadable or larger than the limit")
		return
	}
	kind, method, id := classify(r.Method, r.URL.Path, body)
	entry := JournalEntry{Kind: kind, Method: method, Path: r.URL.Path, Exchange: -1}
	i, repeated := rp.pick(key(kind, method))
	if i < 0 {
		entry.Detail = "not in the recording"
		if kind == KindJSONRPC {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
				"code": -32601, "message": "Method not found: " + method + " (not in the recording)"}})
			entry.Status = http.StatusOK
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
		} else {
			entry.Status = http.StatusNotFound
			proxyError(w, http.StatusNotFound, method+" is not in the recording")
		}
		rp.log(entry)
		return
	}
	x := &rp.rec.Exchanges[i]
	entry.Exchange, entry.Repeated, entry.Status = i, repeated, x.Status
	defer func() { rp.log(entry) }()
	if !rp.wait(r.Context(), begin, x.HeadersAfter) {
		entry.Detail = "client left before the answer"
		return
	}
	if x.ContentType != "" {
		w.Header().Set("Content-Type", x.ContentType)
	}
	if !x.Streamed() {
		out := []byte(x.Body)
		if len(x.Response) > 0 {
			out = x.Response
			if card, inResult := isCardAnswer(kind, method, r.URL.Path); card && x.Status == http.StatusOK {
				out = rewriteCard(out, inResult, rp.fromPath, origin(r))
			}
			out = withID(out, id)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(x.Status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(out)
		}
		return
	}
	entry.Events, entry.Detail = rp.replayStream(w, r, x, id, begin)
}

// replayStream plays the recorded events at their recorded offsets.
func (rp *Replayer) replayStream(w http.ResponseWriter, r *http.Request, x *Exchange, id json.RawMessage, begin time.Time) (int, string) {
	// A stream is replayed with status 200, as sse.Writer sends; agents
	// answer streams with anything else so rarely that it is not worth a
	// second framing path.
	sw := sse.NewWriter(w)
	if err := sw.WriteHeader(); err != nil {
		return 0, "client gone"
	}
	sent := 0
	sp := rp.opts.Splice
	for n, ev := range x.Events {
		if !rp.wait(r.Context(), begin, ev.After) {
			return sent, "client gone"
		}
		if sp != nil && sp.At == n {
			switch sp.Fault {
			case FaultEndStream:
				return sent, fmt.Sprintf("spliced %d:end-stream", n)
			case FaultHang:
				rp.hold(r)
				return sent, fmt.Sprintf("spliced %d:hang", n)
			case FaultDrop:
				continue
			}
		}
		data := []byte(ev.Text)
		if len(ev.Data) > 0 {
			data = withID(ev.Data, id)
		}
		if err := sw.Event(sse.Event{ID: ev.ID, Name: ev.Name, Data: data}); err != nil {
			return sent, "client gone"
		}
		sent++
	}
	if !rp.wait(r.Context(), begin, x.EndAfter) {
		return sent, "client gone"
	}
	switch x.End {
	case EndTruncated:
		_ = sw.WriteRaw([]byte(x.Tail))
		return sent, "ended mid-frame as recorded"
	case EndClientGone:
		rp.hold(r)
		return sent, "held open until the client left, as recorded"
	}
	return sent, "ended as recorded: " + string(x.End)
}

// hold keeps a stream open, silent, until the client leaves or the
// replayer closes.
func (rp *Replayer) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-rp.ctx.Done():
	}
}

// control serves the journal, reset and health endpoints with the same
// access rule as package server's control API.
func (rp *Replayer) control(w http.ResponseWriter, r *http.Request) {
	if tok := rp.opts.ControlToken; tok != "" {
		if !httpserve.SameSecret(r.Header.Get("Authorization"), "Bearer "+tok) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2amock control"`)
			proxyError(w, http.StatusUnauthorized, "the control API requires the bearer token given by --control-token")
			return
		}
	} else if !httpserve.LoopbackRemote(r) {
		proxyError(w, http.StatusForbidden, "the control API answers loopback clients only; start the replay with --control-token to open it")
		return
	}
	if msg := httpserve.CrossSite(r, rp.opts.ControlToken == ""); msg != "" {
		proxyError(w, http.StatusForbidden, msg)
		return
	}
	writeJSON := func(v any) {
		b, _ := json.Marshal(v)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}
	switch {
	case r.URL.Path == controlPrefix+"journal" && r.Method == http.MethodGet:
		entries := rp.Journal()
		if entries == nil {
			entries = []JournalEntry{}
		}
		writeJSON(map[string]any{"entries": entries})
	case r.URL.Path == controlPrefix+"healthz" && r.Method == http.MethodGet:
		writeJSON(map[string]any{"status": "ok", "replay": rp.rec.Upstream, "exchanges": len(rp.rec.Exchanges)})
	case r.URL.Path == controlPrefix+"reset" && r.Method == http.MethodPost:
		rp.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		proxyError(w, http.StatusNotFound, "no control route "+r.Method+" "+r.URL.Path)
	}
}
