package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/control"
	"github.com/a2amock/a2amock/server/internal/grpcbind"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/rest03"
	"github.com/a2amock/a2amock/server/internal/restroute"
	"github.com/a2amock/a2amock/server/internal/streaming"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/wire"
)

const (
	restPrefix     = "/rest"
	cardPath       = "/.well-known/agent-card.json"
	legacyCardPath = "/.well-known/agent.json"
	controlPrefix  = control.Prefix
)

func (s *Server) routes() *echo.Echo {
	e := httpserve.Echo(s.log)
	e.HTTPErrorHandler = control.ErrorHandler
	api := control.New(controlHost{s}, control.Config{Token: s.cfg.ControlToken, FrontSecret: s.cfg.ControlFrontSecret})
	api.Routes(e.Group(controlPrefix, api.Guard))
	api.UIRoutes(e)
	// One catch-all route: agents are routed here rather than by echo, which
	// keeps Start cheap (each echo route costs a tree insertion per method).
	e.Any("/*", s.dispatch)
	return e
}

func (s *Server) dispatch(c echo.Context) error {
	// Route on the escaped path: restroute.Parse unescapes each segment once, so
	// a task id holding "/" or "%" (v0.1 clients choose their ids) stays
	// one segment and is not decoded twice.
	p := c.Request().URL.EscapedPath()
	if rest, ok := strings.CutPrefix(p, "/agents/"); ok {
		name, sub, _ := strings.Cut(rest, "/")
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
		a, found := s.agents.Lookup(name)
		if !found {
			return httpbind.WriteStatusError(c.Response(), wire.Errorf(wire.CodeMethodNotFound, "no agent named %q (agents: %s)", name, strings.Join(s.AgentNames(), ", ")).WithHTTPStatus(http.StatusNotFound))
		}
		return s.serveAgentPath(c, a, "/agents/"+a.name, "/"+sub)
	}
	if p == "" {
		p = "/"
	}
	return s.serveAgentPath(c, s.agents.Root(), "", p)
}

// serveAgentPath routes a request under an agent's base path.
func (s *Server) serveAgentPath(c echo.Context, a *agent, base, rest string) error {
	cw, rec := s.wire.Wrap(c.Response().Writer, c.Request(), s.clock.Now())
	c.Response().Writer = cw
	defer rec.Finish()
	if s.cfg.GRPC && grpcbind.IsCall(c.Request()) {
		return s.grpc.Serve(c.Response(), c.Request(), a, base, rest)
	}
	r, w := c.Request(), c.Response()
	switch {
	case rest == "/" || rest == "":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			return s.refuseUnrouted(w, r, a, wire.BindingJSONRPC, wire.Errorf(wire.CodeInvalidRequest, "the JSON-RPC endpoint answers POST only; the agent card is at %s", base+cardPath).WithHTTPStatus(http.StatusMethodNotAllowed))
		}
		if !s.declares(a, wire.BindingJSONRPC) {
			return s.refuseUndeclared(w, r, a, wire.BindingJSONRPC, base)
		}
		return httpbind.ServeJSONRPC(s.host, w, r, a, base)
	case rest == cardPath || rest == legacyCardPath:
		return s.serveCard(w, r, a, base, rest)
	case rest == cardserve.JWKSPath:
		return s.serveJWKS(w, r, a)
	case rest03.Claims(rest): // v0.3 HTTP+JSON: {agent}/v0.3/v1/...
		return rest03.Serve(s.host, w, r, a, base, rest, s.declares(a, wire.BindingREST))
	case !s.declares(a, wire.BindingREST):
		if rest == restPrefix || strings.HasPrefix(rest, restPrefix+"/") {
			return s.refuseUndeclared(w, r, a, wire.BindingREST, base)
		}
	case rest == restPrefix || strings.HasPrefix(rest, restPrefix+"/"):
		return httpbind.ServeREST(s.host, w, r, a, base, strings.TrimPrefix(rest, restPrefix))
	}
	// The HTTP+JSON routes answer at the agent's base URL too, where the
	// a2a CLI and a2a-go post when told to use REST without reading the
	// card (they do not collide with JSON-RPC's POST {agent}/). The card
	// keeps declaring {agent}/rest.
	if _, e := restroute.Parse(r.Method, rest, MaxIDBytes); !restroute.IsNoRoute(e) {
		if !s.declares(a, wire.BindingREST) {
			return s.refuseUndeclared(w, r, a, wire.BindingREST, base)
		}
		return httpbind.ServeREST(s.host, w, r, a, base, rest)
	}
	return s.refuseUnrouted(w, r, a, "", wire.Errorf(wire.CodeMethodNotFound, "no route %s %s (JSON-RPC: POST %s/, HTTP+JSON: %s%s/... or %s/..., card: %s%s)",
		r.Method, r.URL.Path, base, base, restPrefix, base, base, cardPath).WithHTTPStatus(http.StatusNotFound))
}

// refuseUnrouted answers a request no route of agent a serves with e (an
// HTTP+JSON-shaped error), journaling it as a refused request over binding
// b ("" when it names none) unless it is a GET a browser or a probe sends
// on its own (httpbind.JournalsUnrouted).
func (s *Server) refuseUnrouted(w http.ResponseWriter, r *http.Request, a *agent, b wire.Binding, e *wire.Error) error {
	if httpbind.JournalsUnrouted(r) {
		s.rec.Refused(w, r, a.name, &wire.Request{Binding: b}, e)
	}
	return httpbind.WriteStatusError(w, e)
}

// serveCard serves the agent's card, from the scheme and host the client
// reached us by (httpbind.Origin), so card URLs work through port mappings
// and proxies that keep the Host header.
func (s *Server) serveCard(w http.ResponseWriter, r *http.Request, a *agent, base, path string) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the agent card answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	x, rep := a.exchange(behaviors.OpCard, nil, httpbind.Incoming(r))
	x.Signing = a.cards.Signer.Signing(httpbind.Origin(r), base)
	ent := Entry{Agent: a.name, Kind: EntryCard, Op: behaviors.OpCard, Path: r.URL.Path, Behaviors: rep.Acted, Skipped: rep.Skipped}
	if e := x.Hooks().Reject; e != nil {
		// A behavior scoped to the card answers in its place (http-error).
		ent.ErrorCode, ent.Detail = e.Code, e.Message
	}
	cardSeq := s.rec.Record(ent)
	wirecap.Tag(w, 0, cardSeq)
	s.countBehaviors(a, rep)
	acted := s.instrument(x, rep.Owners, cardSeq)
	if hooks := x.Hooks(); len(hooks.Transport) > 0 || hooks.Delay > 0 {
		// A behavior scoped to the card (op=agent-card) faults the fetch
		// on the wire as it would any request.
		if hooks.Delay > 0 {
			acted.AddAll(rep.Owners.Delay, HookDelay)
		}
		t := binding.ApplyTransport(httpbind.NewTransport(s.host, w, r), hooks)
		if stop, _ := t.Stopped(); stop {
			return nil
		}
		w = t.Writer()
	}
	if e := x.Hooks().Reject; e != nil {
		acted.Add(rep.Owners.Reject, HookReject)
		return httpbind.WriteStatusError(w, e)
	}
	if slices.Contains(x.Hooks().HideCardPath, path) {
		acted.AddAll(rep.Owners.HideCard, HookHideCardPath)
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeMethodNotFound, "no agent card at %s", r.URL.Path).WithHTTPStatus(http.StatusNotFound))
	}
	return a.cards.Answer(w, r, x, base, s.clock.Now())
}

// checkVersion applies the A2A-Version rules (wire.CheckVersion) to a
// request for dialect d.
func (s *Server) checkVersion(r *http.Request, d wire.Dialect) *wire.Error {
	return wire.CheckVersion(httpbind.RequestedVersion(r), d, s.cfg.StrictVersion)
}

// serveRequest is what both bindings do with a decoded request: journal it,
// check the credentials, apply the behaviors' hooks and answer it, unary or
// streamed.
func (s *Server) serveRequest(w http.ResponseWriter, r *http.Request, a *agent, base string, req *wire.Request, rp binding.Reply) error {
	if a.dynamic {
		// Removing the agent ends the request as a client leaving would:
		// behaviors that hold it, delays and waits all watch its context.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(a.ctx, cancel)()
		r = r.WithContext(ctx)
	}
	if e := binding.CheckSizes(req, s.cfg.MaxPartBytes, s.cfg.MaxMessageBytes); e != nil && a.Gate(req.Op) == nil {
		s.rec.Refused(w, r, a.name, req, e)
		return rp.Fail(w, e)
	}
	reqNo, seq := s.rec.Request(a.name, req, r.URL.Path, httpbind.RequestedVersion(r))
	wirecap.Tag(w, reqNo, 0)
	if e := s.checkAuth(a, r, req); e != nil {
		s.rec.Response(a.name, req, reqNo, nil, e)
		if e.Code == wire.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2amock"`)
		}
		return rp.Fail(w, rp.AuthError(e))
	}
	x, rep := a.exchange(req.Op, req, httpbind.Incoming(r))
	s.noteBehaviors(a, seq, rep)
	acted := s.instrument(x, rep.Owners, seq)
	if req.Op == wire.OpExtendedCard {
		x.Signing = a.cards.Signer.Signing(httpbind.Origin(r), base)
	}
	hooks := x.Hooks()
	if strings.HasSuffix(req.Method, LegacySubscribeRoute) { // v0.3 HTTP+JSON: "GET /v1/tasks/{id}/subscribe"
		if !hooks.LegacySubscribe {
			e := wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s: SubscribeToTask is at /tasks/{id}:subscribe", r.Method, r.URL.Path).WithHTTPStatus(http.StatusNotFound)
			s.rec.Response(a.name, req, reqNo, nil, e)
			return rp.Fail(w, e)
		}
		acted.Add(rep.Owners.Legacy, HookLegacySubscribe)
	}
	if hooks.Delay > 0 {
		acted.AddAll(rep.Owners.Delay, HookDelay)
	}
	if len(hooks.Transport) > 0 || hooks.Delay > 0 {
		t := binding.ApplyTransport(rp.Transport(s.host, w, r), hooks)
		if stop, e := t.Stopped(); stop {
			if e != nil {
				s.rec.Response(a.name, req, reqNo, nil, e)
			}
			return nil
		}
		w = t.Writer()
	}
	if hooks.Reject != nil {
		acted.Add(rep.Owners.Reject, HookReject)
		s.rec.Response(a.name, req, reqNo, nil, hooks.Reject)
		return rp.Fail(w, hooks.Reject)
	}
	if req.Op.Streaming() {
		st := &streaming.Stream{Agent: a.eng, AgentName: a.name, Clock: s.clock, KeepAlive: s.cfg.KeepAliveInterval,
			ServerCtx: s.ctx, AgentCtx: a.ctx, Record: s.rec.Record,
			Respond: func(res *wire.Result, e *wire.Error) { s.rec.Response(a.name, req, reqNo, res, e) }}
		return st.Serve(w, r, req, x, reqNo, rp.Framer(), rep.Owners.StreamEvent, acted)
	}
	res, e := a.serveUnary(r, req, x, base)
	for _, f := range hooks.Result {
		res, e = f(res, e)
	}
	s.rec.Response(a.name, req, reqNo, res, e)
	if e != nil {
		return rp.Fail(w, e)
	}
	return rp.Result(w, req.Op, res)
}

// delay waits d unless the client leaves or the server closes first.
func (s *Server) delay(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	fired, stop := s.clock.NewTimer(d)
	defer stop()
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	case <-s.ctx.Done():
		return false
	}
}

// LegacySubscribeRoute is the route pattern (after the method) of the
// pre-1.0 SubscribeToTask path, as the journal and Request.Method give it.
const LegacySubscribeRoute = restroute.LegacySubscribeRoute
