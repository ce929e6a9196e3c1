package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/control"
	"github.com/a2amock/a2amock/server/internal/grpcbind"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/rest03"
	"github.com/a2amock/a2amock/server/internal/restroute"
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
	a, name, base, rest := s.pathAgent(c.Request().URL.EscapedPath())
	if a == nil {
		return httpbind.WriteStatusError(c.Response(), wire.Errorf(wire.CodeMethodNotFound, "no agent named %q (agents: %s)", name, strings.Join(s.AgentNames(), ", ")).WithHTTPStatus(http.StatusNotFound))
	}
	return s.serveAgentPath(c, a, base, rest)
}

// pathAgent splits path into the agent it names (/agents/{name}/..., else
// the root), its base path and the path below it; a is nil when path
// names an agent not hosted.
func (s *Server) pathAgent(path string) (a *agent, name, base, rest string) {
	sub, ok := strings.CutPrefix(path, "/agents/")
	if !ok {
		if path == "" {
			path = "/"
		}
		a = s.agents.Root()
		return a, a.name, "", path
	}
	name, sub, _ = strings.Cut(sub, "/")
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	if a, ok = s.agents.Lookup(name); !ok {
		return nil, name, "", ""
	}
	return a, name, "/agents/" + name, "/" + sub
}

// AgentOf names the agent the request r is served or refused as, before
// it is served: the agent its path names as dispatch reads it
// (/agents/{name}/..., the name even when no such agent is hosted), else
// the root; a gRPC call the agent GRPCCall names. For a gRPC call it reads
// r's body, as far as the server would, and leaves r.Body reading it whole.
func (s *Server) AgentOf(r *http.Request) string {
	if c, ok := s.GRPCCall(r); ok {
		return c.Agent
	}
	a, name, _, _ := s.pathAgent(r.URL.EscapedPath())
	if a != nil {
		return a.name
	}
	return name
}

// GRPCCall is a gRPC call as the server reads it on its arrival, before
// it is served (Server.GRPCCall).
type GRPCCall struct {
	// Agent is the agent the call is served or refused as: a v0.3 call,
	// whose request names no agent, by its service's route, and a v1.0
	// call by the tenant its message names.
	Agent string
	// Method is the method its path names below the agent's base path
	// (SendMessage for /agents/x/lf.a2a.v1.A2AService/SendMessage), as it
	// is journaled: "" when it names no method of a service served.
	Method string
	// Tenant is the tenant its request message carries, as the server
	// routes the call by it: "" when its service's requests have none
	// (v0.3's), and for a call refused before its message was read.
	Tenant string
}

// GRPCCall reads r as the server reads a gRPC call, before it is served,
// by the gRPC binding's own rule (grpcbind.Binding.CallOf); ok reports
// whether the server serves r as one (Config.GRPC, and an HTTP/2 POST of a
// gRPC content type, at a hosted agent's path or the root). It reads r's
// body, as far as the server would, and leaves r.Body reading it whole:
// the one copy of it until the call is served. a2amock conform records
// each exchange's agent, gRPC method and tenant by it.
func (s *Server) GRPCCall(r *http.Request) (c GRPCCall, ok bool) {
	if !s.cfg.GRPC || !grpcbind.IsCall(r) {
		return c, false
	}
	a, _, base, rest := s.pathAgent(r.URL.EscapedPath())
	if a == nil { // refused by dispatch before the gRPC binding reads it
		return c, false
	}
	at, method, tenant := s.grpc.CallOf(r, a, base, rest)
	return GRPCCall{Agent: at.(*agent).name, Method: method, Tenant: tenant}, true
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
		return s.answer.Card(w, r, a, base, rest)
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

// checkVersion applies the A2A-Version rules (wire.CheckVersion) to a
// request for dialect d.
func (s *Server) checkVersion(r *http.Request, d wire.Dialect) *wire.Error {
	return wire.CheckVersion(httpbind.RequestedVersion(r), d, s.cfg.StrictVersion)
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
