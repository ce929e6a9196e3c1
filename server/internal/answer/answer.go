// Package answer answers what routing hands to one agent: a decoded A2A
// request of any binding (Server.Request) and a fetch of the agent's card
// (Server.Card). Both go the same way: journal it, apply the agent's
// behaviors and note which acted, carry out their hooks (delays, transport
// faults, rejections), then answer: unary, streamed, or with the card.
//
// Routing, the bindings' codecs and the agents themselves are the
// server's; this package only runs the exchange, so that every binding
// and the card share one path and one way of journaling it.
package answer

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/credentials"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/restroute"
	"github.com/a2amock/a2amock/server/internal/streaming"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/wire"
)

// Agent is a hosted agent as its answers need it.
type Agent interface {
	binding.Agent
	// Name is the agent's name, as its journal entries carry it.
	Name() string
	// Exchange builds the behaviors' view of a request (nil for a card
	// fetch) and applies the agent's behaviors to it; the report says
	// which acted and which were out of scope.
	Exchange(op wire.Op, req *wire.Request, in behaviors.Incoming) (*behaviors.Exchange, acted.Report)
	// Engine holds the agent's tasks and plays its timelines.
	Engine() *engine.Agent
	// Cards serves the agent's card; ExtendedCard is the card
	// GetExtendedAgentCard answers, nil when none is configured.
	Cards() *cardserve.Agent
	ExtendedCard() *cards.Card
	// Context ends when the agent is removed or the server closes;
	// Dynamic reports whether the agent may be removed while the server
	// runs (it was created through the control API).
	Context() context.Context
	Dynamic() bool
	// EnforcesAuth reports whether the agent requires the credentials its
	// card's securitySchemes declare.
	EnforcesAuth() bool
}

// Server is what answering needs of the server. Its methods only read it,
// so one value serves every request.
type Server struct {
	// Rec journals (Rec.Journal) and counts (Rec.Metrics) on the server's
	// clock (Rec.Clock).
	Rec *entries.Writer
	// Host is the server's core as the bindings see it: their transports
	// carry out the behaviors' faults with it.
	Host binding.Host
	// Ctx ends when the server closes: open streams end with it.
	Ctx context.Context
	// KeepAlive is the period of keep-alives on streams held open.
	KeepAlive time.Duration
	// MaxPartBytes and MaxMessageBytes bound a message's content
	// (binding.CheckSizes).
	MaxPartBytes, MaxMessageBytes int
}

// Request is what every binding does with a decoded request of agent a
// (served below base): journal it, check the credentials, apply the
// behaviors' hooks and answer it through rp, unary or streamed.
func (s *Server) Request(w http.ResponseWriter, r *http.Request, a Agent, base string, req *wire.Request, rp binding.Reply) error {
	if a.Dynamic() {
		// Removing the agent ends the request as a client leaving would:
		// behaviors that hold it, delays and waits all watch its context.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(a.Context(), cancel)()
		r = r.WithContext(ctx)
	}
	name := a.Name()
	if e := binding.CheckSizes(req, s.MaxPartBytes, s.MaxMessageBytes); e != nil && a.Gate(req.Op) == nil {
		s.Rec.Refused(w, r, name, req, e)
		return rp.Fail(w, e)
	}
	reqNo, seq := s.Rec.Request(name, req, r.URL.Path, httpbind.RequestedVersion(r))
	wirecap.Tag(w, reqNo, 0)
	respond := func(res *wire.Result, e *wire.Error) { s.Rec.Response(name, req, reqNo, res, e) }
	if e := checkAuth(a, r, req); e != nil {
		respond(nil, e)
		if e.Code == wire.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2amock"`)
		}
		return rp.Fail(w, rp.AuthError(e))
	}
	x, rep := a.Exchange(req.Op, req, httpbind.Incoming(r))
	s.noteBehaviors(name, seq, rep)
	log := s.instrument(x, rep.Owners, seq)
	if req.Op == wire.OpExtendedCard {
		x.Signing = a.Cards().Signer.Signing(httpbind.Origin(r), base)
	}
	hooks := x.Hooks()
	if strings.HasSuffix(req.Method, restroute.LegacySubscribeRoute) { // v0.3 HTTP+JSON: "GET /v1/tasks/{id}/subscribe"
		if !hooks.LegacySubscribe {
			e := wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s: SubscribeToTask is at /tasks/{id}:subscribe", r.Method, r.URL.Path).WithHTTPStatus(http.StatusNotFound)
			respond(nil, e)
			return rp.Fail(w, e)
		}
		log.Add(rep.Owners.Legacy, journal.HookLegacySubscribe)
	}
	if hooks.Delay > 0 {
		log.AddAll(rep.Owners.Delay, journal.HookDelay)
	}
	if len(hooks.Transport) > 0 || hooks.Delay > 0 {
		t := binding.ApplyTransport(rp.Transport(s.Host, w, r), hooks)
		if stop, e := t.Stopped(); stop {
			if e != nil {
				respond(nil, e)
			}
			return nil
		}
		w = t.Writer()
	}
	if hooks.Reject != nil {
		log.Add(rep.Owners.Reject, journal.HookReject)
		respond(nil, hooks.Reject)
		return rp.Fail(w, hooks.Reject)
	}
	if req.Op.Streaming() {
		st := &streaming.Stream{Agent: a.Engine(), AgentName: name, Clock: s.Rec.Clock, KeepAlive: s.KeepAlive,
			ServerCtx: s.Ctx, AgentCtx: a.Context(), Record: s.Rec.Record, Amender: s.Rec.Journal, Respond: respond}
		return st.Serve(w, r, req, x, reqNo, rp.Framer(), rep.Owners.StreamEvent, log)
	}
	res, e := unary(a, r, req, x, base)
	for _, f := range hooks.Result {
		res, e = f(res, e)
	}
	respond(res, e)
	if e != nil {
		return rp.Fail(w, e)
	}
	return rp.Result(w, req.Op, res)
}

// checkAuth enforces the card's security requirements on a binding request
// when the agent enforces authentication, and the auth-required flow (a
// message continuing an auth-required task must carry credentials) always.
// The card endpoints never come here: they stay public.
func checkAuth(a Agent, r *http.Request, req *wire.Request) *wire.Error {
	card := a.Cards().Card
	if !a.EnforcesAuth() {
		if req != nil && req.Message != nil && req.Message.TaskID != "" && a.Engine().TaskState(req.Message.TaskID) == wire.StateAuthRequired {
			return credentials.Verify(card, r, "task "+req.Message.TaskID+" is auth-required: continue it with credentials")
		}
		return nil
	}
	return credentials.Verify(card, r, "")
}

// unary answers every non-streaming operation in canonical form: the
// engine answers all but the extended card, which names this server's URLs.
func unary(a Agent, r *http.Request, req *wire.Request, x *behaviors.Exchange, base string) (*wire.Result, *wire.Error) {
	eng := a.Engine()
	if req.Op != wire.OpExtendedCard {
		return eng.Unary(r.Context(), req, x)
	}
	if err := eng.GateRequest(req); err != nil {
		return nil, err
	}
	b, e := a.Cards().Extended(a.ExtendedCard(), x, httpbind.Origin(r), base)
	if e != nil {
		return nil, e
	}
	return &wire.Result{Card: b}, nil
}

// Card serves the agent's card at path (below base), from the scheme and
// host the client reached us by (httpbind.Origin), so card URLs work
// through port mappings and proxies that keep the Host header. Behaviors
// scoped to the card (op=agent-card) act on the fetch as on any request.
func (s *Server) Card(w http.ResponseWriter, r *http.Request, a Agent, base, path string) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the agent card answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	cs := a.Cards()
	x, rep := a.Exchange(behaviors.OpCard, nil, httpbind.Incoming(r))
	x.Signing = cs.Signer.Signing(httpbind.Origin(r), base)
	ent := journal.Entry{Agent: a.Name(), Kind: journal.EntryCard, Op: behaviors.OpCard, Path: r.URL.Path, Behaviors: rep.Acted, Skipped: rep.Skipped}
	if e := x.Hooks().Reject; e != nil {
		// A behavior scoped to the card answers in its place (http-error).
		ent.ErrorCode, ent.Detail = e.Code, e.Message
	}
	cardSeq := s.Rec.Record(ent)
	wirecap.Tag(w, 0, cardSeq)
	s.countBehaviors(a.Name(), rep)
	log := s.instrument(x, rep.Owners, cardSeq)
	if hooks := x.Hooks(); len(hooks.Transport) > 0 || hooks.Delay > 0 {
		// A behavior scoped to the card faults the fetch on the wire as
		// it would any request.
		if hooks.Delay > 0 {
			log.AddAll(rep.Owners.Delay, journal.HookDelay)
		}
		t := binding.ApplyTransport(httpbind.NewTransport(s.Host, w, r), hooks)
		if stop, _ := t.Stopped(); stop {
			return nil
		}
		w = t.Writer()
	}
	if e := x.Hooks().Reject; e != nil {
		log.Add(rep.Owners.Reject, journal.HookReject)
		return httpbind.WriteStatusError(w, e)
	}
	if slices.Contains(x.Hooks().HideCardPath, path) {
		log.AddAll(rep.Owners.HideCard, journal.HookHideCardPath)
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeMethodNotFound, "no agent card at %s", r.URL.Path).WithHTTPStatus(http.StatusNotFound))
	}
	return cs.Answer(w, r, x, base, s.Rec.Clock.Now())
}

// noteBehaviors writes what the behaviors did into the request's journal
// entry (journaled before the behaviors ran) and counts it.
func (s *Server) noteBehaviors(agent string, seq int64, rep acted.Report) {
	if len(rep.Acted) > 0 || len(rep.Skipped) > 0 {
		s.Rec.Journal.Amend(seq, func(e *journal.Entry) { e.Behaviors, e.Skipped = rep.Acted, rep.Skipped })
	}
	s.countBehaviors(agent, rep)
}

// countBehaviors counts the behaviors that acted and skipped in the
// metrics.
func (s *Server) countBehaviors(agent string, rep acted.Report) {
	if len(rep.Acted) > 0 || len(rep.Skipped) > 0 {
		s.Rec.Metrics.Behaviors(agent, rep.Names, rep.Skipped)
	}
}

// instrument wraps the hooks of x (package acted) so that each behavior
// that acts is named on the entry numbered seq; a stream-end hook that
// writes raw bytes is named on the stream's delivery too.
func (s *Server) instrument(x *behaviors.Exchange, own acted.Owners, seq int64) *acted.Log {
	if !acted.Hooked(x) {
		return nil
	}
	amend := func(list []journal.ActedBehavior) {
		s.Rec.Journal.Amend(seq, func(e *journal.Entry) { e.Acted = list })
	}
	return acted.Instrument(x, own, amend, streaming.SetEndOwner)
}
