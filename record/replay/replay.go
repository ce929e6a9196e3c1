package replay

import (
	"bytes"
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

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay/internal/canon"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
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
// stream. A stream with fewer events is replayed unchanged. It is a
// behavior of the replay's registry (the catalogue plus "splice" and
// "replay"), written "splice:at=N,fault=F" in the journal and the control
// API.
type Splice struct {
	At    int   `param:"at" doc:"the event (counted from 0) the fault strikes"`
	Fault Fault `param:"fault" doc:"end-stream (close before event N), drop (leave event N out) or hang (stop before event N and hold the stream open)"`
}

// Validate implements behaviors.Validator.
func (sp *Splice) Validate() error {
	switch sp.Fault {
	case FaultEndStream, FaultDrop, FaultHang:
	default:
		return fmt.Errorf("fault %q: use end-stream, drop or hang", sp.Fault)
	}
	if sp.At < 0 {
		return fmt.Errorf("at %d: events are counted from 0", sp.At)
	}
	return nil
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

// String is the splice as the replay's registry parses it.
func (sp *Splice) String() string { return fmt.Sprintf("splice:at=%d,fault=%s", sp.At, sp.Fault) }

// Apply implements behaviors.Behavior: the fault at event At of a stream.
func (sp *Splice) Apply(x *behaviors.Exchange) {
	if !x.Op.Streaming() {
		return
	}
	n, hanging := 0, false
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, raw behaviors.RawStream) error {
		k := n
		n++
		if hanging {
			return nil
		}
		if k == sp.At {
			switch sp.Fault {
			case FaultEndStream:
				raw.Close()
				return nil
			case FaultDrop:
				return nil
			case FaultHang:
				hanging = true
				return nil
			}
		}
		return emit(ev)
	})
	x.OnStreamEnd(func(behaviors.RawStream) bool { return hanging })
}

// Options configure a Replayer.
type Options struct {
	// Speed divides every recorded delay: 1 replays in recorded time, 2
	// twice as fast; 0 replays without waiting.
	Speed float64
	// Splice, when set, injects a fault into every replayed stream.
	Splice *Splice
	// Behaviors are applied to every request the engine answers, after the
	// replay's own and the splice: any behavior of the registry
	// (behaviors.Catalogue().Parse("stream-drop-events:rate=0.5"), say).
	// Exchanges replayed as recorded bytes are not faulted by them.
	Behaviors []behaviors.Behavior
	// ControlToken, when set, is the bearer token the control API
	// (/_a2amock/...) requires; when empty it answers loopback clients
	// only, as a2amock serve's does (it is the same control API).
	ControlToken string
	// MaxBodyBytes bounds request bodies; 0 means 4 MiB.
	MaxBodyBytes int64
	// Clock is the source of time of every replayed delay; nil means the
	// wall clock.
	Clock timeline.Clock
	// Seed drives the ids the engine mints for what the recording does
	// not fix (a task started after the recorded ones ran out).
	Seed uint64
}

// AgentName is the name of the replayed agent in the journal (the agent
// served at the root, as a2amock serve's first agent).
const AgentName = "agent"

// Replayer serves a Recording as a fake agent: an a2amock server whose
// agent plays the recorded sends as scripted timelines, in front of which
// the exchanges the model cannot express are answered with the recorded
// bytes. It is an http.Handler.
type Replayer struct {
	rec      *record.Recording
	opts     Options
	fromPath string
	byKey    map[string][]int
	plans    []*plan
	srv      *server.Server
	clock    timeline.Clock

	ctx  context.Context // canceled by Close: ends held streams
	stop context.CancelFunc

	mu    sync.Mutex
	next  map[string]int
	stash map[string][]*plan
}

// New returns a handler replaying rec.
func New(rec *record.Recording, opts Options) (*Replayer, error) {
	if rec == nil {
		return nil, fmt.Errorf("record: nil recording")
	}
	if err := rec.Validate(); err != nil {
		return nil, err
	}
	if opts.Speed < 0 {
		return nil, fmt.Errorf("record: speed %v is negative", opts.Speed)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	rp := &Replayer{rec: rec, opts: opts, byKey: map[string][]int{}, next: map[string]int{}, stash: map[string][]*plan{}, clock: opts.Clock}
	if rp.clock == nil {
		rp.clock = timeline.RealClock{}
	}
	if u, err := url.Parse(rec.Upstream); err == nil {
		rp.fromPath = u.Path
	}
	for i, x := range rec.Exchanges {
		k := key(x.Kind, x.Method)
		if x.Kind == record.KindGRPC {
			// Two services have methods of the same name: the path
			// tells them apart.
			k = key(x.Kind, x.Path)
		}
		rp.byKey[k] = append(rp.byKey[k], i)
	}
	card := canon.Card(rec, AgentName, opts.Seed)
	bs := []behaviors.Behavior{&replayBehavior{rp: rp}}
	if opts.Splice != nil {
		bs = append(bs, opts.Splice)
	}
	bs = append(bs, opts.Behaviors...)
	reg := behaviors.Catalogue()
	if err := reg.Register(behaviors.Spec{Name: replayName, Doc: replayDoc,
		New: func() behaviors.Behavior { return &replayBehavior{rp: rp} }}); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if err := reg.Register(behaviors.Spec{Name: "splice", Doc: spliceDoc,
		New: func() behaviors.Behavior { return &Splice{Fault: FaultEndStream} }}); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	cfg := server.Config{Seed: opts.Seed, Clock: opts.Clock, ControlToken: opts.ControlToken, Registry: reg,
		MaxBodyBytes: opts.MaxBodyBytes, GRPC: true, Agents: []server.AgentConfig{{Name: AgentName, Card: card, Behaviors: bs}}}
	srv, err := server.New(cfg)
	if err != nil && card != nil {
		// A card the engine refuses to serve (no skills, say) is still
		// served as recorded; the engine plays a generated one.
		cfg.Agents[0].Card = nil
		srv, err = server.New(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	rp.srv, rp.plans = srv, makePlans(rec, cfg.Agents[0].Card, rp.scale)
	rp.ctx, rp.stop = context.WithCancel(context.Background())
	return rp, nil
}

// scale turns a recorded delay into a replay delay.
func (rp *Replayer) scale(d time.Duration) time.Duration {
	if rp.opts.Speed == 0 || d <= 0 {
		return 0
	}
	return time.Duration(float64(d) / rp.opts.Speed)
}

// Server is the a2amock server the replay runs on: its journal, behaviors
// and control API are those of any a2amock server.
func (rp *Replayer) Server() *server.Server { return rp.srv }

// Close ends open streams and the players of replayed tasks; call it
// before shutting down the HTTP server that serves the Replayer.
func (rp *Replayer) Close() {
	rp.stop()
	_ = rp.srv.Close()
}

// SetBehaviors replaces the replayed agent's behaviors with specs, parsed
// with the replay's registry (the catalogue, replay and splice), keeping
// the replay itself first, as PUT /_a2amock/behaviors does.
func (rp *Replayer) SetBehaviors(specs ...string) error {
	if len(specs) == 0 || strings.TrimSpace(specs[0]) != replayName {
		specs = append([]string{replayName}, specs...)
	}
	bs, err := rp.srv.ParseBehaviors(specs)
	if err != nil {
		return err
	}
	return rp.srv.SetBehaviors(AgentName, bs)
}

// Journal returns what the replay answered so far, oldest first: the
// server's journal, the same entries a2amock serve writes.
func (rp *Replayer) Journal() []server.Entry { return rp.srv.Journal().Entries() }

// Reset rewinds every method to its first recorded exchange, forgets the
// replayed tasks and clears the journal (as POST /_a2amock/reset does).
func (rp *Replayer) Reset() { rp.srv.Reset() }

func (rp *Replayer) rewind() {
	rp.mu.Lock()
	rp.next, rp.stash = map[string]int{}, map[string][]*plan{}
	rp.mu.Unlock()
}

func key(k record.Kind, method string) string { return string(k) + " " + method }

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

// stashKey joins a picked plan to the engine's view of the same request:
// a send by its message id, anything else by the task it names.
func stashKey(op wire.Op, id string) string { return string(op) + "\x00" + id }

// maxStash bounds the plans waiting for requests the engine never saw (a
// request refused before its behaviors ran).
const maxStash = 64

func (rp *Replayer) put(k string, p *plan) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if q := rp.stash[k]; len(q) < maxStash {
		rp.stash[k] = append(q, p)
	}
}

func (rp *Replayer) take(k string) *plan {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	q := rp.stash[k]
	if len(q) == 0 {
		return nil
	}
	p := q[0]
	if len(q) == 1 {
		delete(rp.stash, k)
	} else {
		rp.stash[k] = q[1:]
	}
	return p
}

// ServeHTTP answers one request: the control API and whatever the
// recording has no exchange for go to the engine as they are; a request
// whose recorded exchange the engine can play goes to it with the plan;
// the rest are answered with the recorded bytes.
func (rp *Replayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := rp.srv.Handler()
	if strings.HasPrefix(r.URL.Path, record.ControlPrefix) {
		h.ServeHTTP(w, keepReplay(r))
		return
	}
	if record.IsGRPC(r) {
		rp.serveGRPC(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, rp.opts.MaxBodyBytes+1))
	if err != nil || int64(len(body)) > rp.opts.MaxBodyBytes {
		// The engine answers (and journals) the oversized body itself.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		h.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	kind, method, _ := record.Classify(r.Method, r.URL.Path, body)
	i, repeated := rp.pick(key(kind, method))
	if i < 0 {
		h.ServeHTTP(w, r)
		return
	}
	p := rp.plans[i]
	if p.raw != "" {
		rp.serveRaw(w, r, body, kind, method, p, repeated)
		return
	}
	rpc := kind == record.KindJSONRPC
	id := canon.RequestTaskID(kind, r.URL.Path, body)
	if p.op == wire.OpSend || p.op == wire.OpStream {
		_, _, id = canon.RequestMessage(body, rpc)
	}
	rp.put(stashKey(p.op, id), p)
	if ep := enginePath(kind, r.URL.Path); ep != r.URL.Path {
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = ep, ""
		r = r2
	}
	h.ServeHTTP(w, r)
}

// enginePath is where the engine serves a request the recorded agent
// served at path: JSON-RPC at the root, HTTP+JSON under /rest, and a
// dialect's own HTTP+JSON routes (v0.3's /v0.3/v1/...) at the root too.
func enginePath(kind record.Kind, path string) string {
	switch kind {
	case record.KindJSONRPC:
		return "/"
	case record.KindREST:
		if strings.HasPrefix(path, "/rest/") {
			return path
		}
		if _, at := wire.RESTRoutesAt(path); at >= 0 {
			return path[at:]
		}
		for _, seg := range []string{"/message:", "/tasks", "/extendedAgentCard"} {
			if i := strings.Index(path, seg); i >= 0 {
				return "/rest" + path[i:]
			}
		}
	}
	return path
}

const (
	replayName = "replay"
	replayDoc  = `The replay itself: hands the engine the recorded decision, timeline
and answers of the exchange each request is matched with. It is always the
first behavior of a replayed agent (the control API puts it back when the
behaviors are replaced or deleted).`
	spliceDoc = `Injects one fault into every replayed stream at event 'at' (from 0):
end-stream closes the stream before it, drop leaves it out, hang stops
before it and holds the stream open until the client leaves.`
)

// keepReplay rewrites a control call that replaces or deletes the replayed
// agent's behaviors so that the replay stays its first behavior; other
// calls are returned as they are.
func keepReplay(r *http.Request) *http.Request {
	if r.URL.Path != record.ControlPrefix+"behaviors" || r.Method != http.MethodPut && r.Method != http.MethodDelete {
		return r
	}
	if a := r.URL.Query().Get("agent"); a != "" && a != AgentName {
		return r
	}
	specs := []string{}
	if r.Method == http.MethodPut {
		var in struct {
			Behaviors *[]string `json:"behaviors"`
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || json.Unmarshal(b, &in) != nil || in.Behaviors == nil {
			r.Body = io.NopCloser(bytes.NewReader(b))
			return r // the server answers what is wrong with the body
		}
		specs = *in.Behaviors
	}
	if len(specs) == 0 || strings.TrimSpace(specs[0]) != replayName {
		specs = append([]string{replayName}, specs...)
	}
	b, _ := json.Marshal(map[string]any{"behaviors": specs})
	r2 := r.Clone(r.Context())
	r2.Method = http.MethodPut
	r2.Body = io.NopCloser(bytes.NewReader(b))
	r2.ContentLength = int64(len(b))
	r2.Header.Set("Content-Type", "application/json")
	return r2
}

// replayBehavior hands the engine the recorded decision, timeline and
// answers of the exchange the front picked for a request.
type replayBehavior struct{ rp *Replayer }

// String names the behavior in the journal.
func (b *replayBehavior) String() string { return replayName }

// Reset implements behaviors.Resetter: a reset rewinds the recording.
func (b *replayBehavior) Reset() { b.rp.rewind() }

// Apply implements behaviors.Behavior.
func (b *replayBehavior) Apply(x *behaviors.Exchange) {
	req := x.Request
	if req == nil {
		return
	}
	id := req.TaskID
	if x.Op == wire.OpSend || x.Op == wire.OpStream {
		if req.Message == nil {
			return
		}
		id = req.Message.MessageID
	}
	p := b.rp.take(stashKey(x.Op, id))
	if p == nil {
		return
	}
	if sp := p.send; sp != nil {
		applySend(x, p, sp)
		return
	}
	if a := p.ans; a != nil {
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if a.Err != nil {
				return nil, a.Err
			}
			if res != nil && res.Task != nil && sameTask(res.Task, a.Event.Task) {
				return &wire.Result{Task: a.Event.Task.Clone()}, nil
			}
			return res, err
		})
	}
}

func sameTask(got, rec *wire.Task) bool {
	return rec != nil && got.ID == rec.ID && got.Status.State == rec.Status.State
}

func applySend(x *behaviors.Exchange, p *plan, sp *sendPlan) {
	x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
		if d.Kind == timeline.DecideDuplicate {
			return
		}
		nd := sp.decision
		if nd.Kind == timeline.DecideContinue && (existing == nil || existing.ID != nd.TaskID) {
			return
		}
		*d = nd
	})
	if sp.tl != nil {
		x.OnPlan(func(timeline.Timeline) timeline.Timeline { return sp.tl.Clone() })
	}
	if x.Op == wire.OpSend {
		if sp.immediate {
			x.Request.Config.ReturnImmediately = true
			x.AddDelay(sp.delay)
		}
		a := p.ans
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			switch {
			case err != nil || res == nil:
			case res.Task != nil && sameTask(res.Task, a.Event.Task):
				return &wire.Result{Task: a.Event.Task.Clone()}, nil
			case res.Message != nil && a.Event.Message != nil:
				m := *a.Event.Message
				return &wire.Result{Message: &m}, nil
			}
			return res, err
		})
		return
	}
	n := 0
	x.OnStreamEvent(func(ev wire.Event, emit func(wire.Event) error, raw behaviors.RawStream) error {
		k := n
		n++
		if k < len(sp.events) && sameEvent(ev, sp.events[k]) {
			ev = sp.events[k]
		}
		err := emit(ev)
		if k == len(sp.events)-1 && sp.tail != "" && err == nil {
			_ = raw.WriteRaw([]byte(sp.tail))
			raw.Close()
		}
		return err
	})
}

// sameEvent reports whether the engine's event is the one recorded at its
// place: same kind, same task and state.
func sameEvent(got, rec wire.Event) bool {
	switch {
	case got.Message != nil:
		return rec.Message != nil
	case got.Task != nil:
		return rec.Task != nil && sameTask(got.Task, rec.Task)
	case got.Status != nil:
		return rec.Status != nil && got.Status.TaskID == rec.Status.TaskID && got.Status.Status.State == rec.Status.Status.State
	case got.Artifact != nil:
		return rec.Artifact != nil && got.Artifact.TaskID == rec.Artifact.TaskID && got.Artifact.Artifact.ArtifactID == rec.Artifact.Artifact.ArtifactID
	}
	return false
}
