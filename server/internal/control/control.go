// Package control is the server's control API (/_a2amock/...): the
// journal (entries, their event stream, the raw bytes of an exchange),
// reset, the run-time switch of behaviors and their catalogue, the agents
// created per test, health, metrics, the OpenAPI description and the
// timeline page; and the guard that keeps it to loopback clients unless a
// token is set, whatever a front rewrote.
//
// It answers HTTP; what it reads and changes it reaches through Host, the
// server as the control API sees it, and Agent.
package control

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/ui"
	"github.com/a2amock/a2amock/wire"
)

// Prefix is the path below which the control API is served.
const Prefix = "/_a2amock"

// FrontHeader is the header by which a front that proxies the control API
// (the gateway of a2amock serve --gateway) vouches for a control call.
const FrontHeader = "X-A2amock-Front"

// Config is how the control API is guarded.
type Config struct {
	// Token, when set, is the bearer token every control call needs; when
	// empty only loopback clients are answered.
	Token string
	// FrontSecret, when set, makes the API answer only the calls that
	// carry it in FrontHeader.
	FrontSecret string
}

// Host is the server as the control API sees it.
type Host interface {
	// Journal is the server's journal.
	Journal() *journal.Journal
	// Done is closed when the server closes.
	Done() <-chan struct{}
	// Root is the agent served at the root; Lookup finds an agent by name,
	// Agents lists the configured ones, then the run-time ones.
	Root() Agent
	Lookup(name string) (Agent, bool)
	Agents() []Agent
	// Reset forgets every task and clears the journal.
	Reset()
	// Registry resolves behavior names; ParseBehaviors parses specs with
	// it, reporting every bad one.
	Registry() *behaviors.Registry
	ParseBehaviors(specs []string) ([]behaviors.Behavior, error)
	// CreateAgent hosts the agent a POST body describes (its name is
	// generated when empty) and returns it; its errors are FieldErrors,
	// ErrAgentExists, ErrTooManyAgents, or another refusal.
	CreateAgent(req *AgentRequest) (Agent, error)
	// RemoveAgent removes a run-time agent (ErrNoSuchAgent, ErrStaticAgent).
	RemoveAgent(name string) error
	// WriteMetrics writes the Prometheus exposition.
	WriteMetrics(w io.Writer) error
	// Wire returns the raw bytes of an exchange (package wirecap).
	Wire(req, seq int64) (wirecap.Exchange, bool)
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes() int64
	// AgentPath is the base path of the named agent; CardPath the card's
	// path below it.
	AgentPath(name string) string
	CardPath() string
	// OpenAPI is the OpenAPI description of the control API.
	OpenAPI() []byte
}

// Agent is a hosted agent as the control API sees it.
type Agent interface {
	Name() string
	// Dynamic says the agent was created through the control API.
	Dynamic() bool
	// Dialect is its card's dialect; Skills its card's skill ids.
	Dialect() string
	Skills() []string
	// Behaviors is its current set of behaviors; SetBehaviors replaces it.
	Behaviors() *acted.Set
	SetBehaviors(bs []behaviors.Behavior)
	// Reset forgets the agent's tasks and its behaviors' state.
	Reset()
	// JournalFrom is the journal sequence number before the agent's view
	// of the journal starts (its creation or last reset).
	JournalFrom() int64
	SetJournalFrom(seq int64)
}

// API is the control API of one server.
type API struct {
	host Host
	cfg  Config
}

// New is the control API over host, guarded as cfg says.
func New(host Host, cfg Config) *API { return &API{host: host, cfg: cfg} }

// Guard keeps the control API (/_a2amock/...) to loopback clients, or,
// when a control token is configured, to clients that present it. With a
// front secret, only calls the front vouches for are answered at all; and a
// state-changing call from a browser page of another site is refused.
func (api *API) Guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if sec := api.cfg.FrontSecret; sec != "" && !httpserve.SameSecret(r.Header.Get(FrontHeader), sec) {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED",
				"the control API answers only the calls the front of this server forwards to it", nil)
		}
		if tok := api.cfg.Token; tok != "" {
			if !httpserve.SameSecret(r.Header.Get("Authorization"), "Bearer "+tok) {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="a2amock control"`)
				return controlError(c, http.StatusUnauthorized, "UNAUTHENTICATED",
					"the control API requires the bearer token given by --control-token", nil)
			}
		} else if api.cfg.FrontSecret == "" && !httpserve.LoopbackRemote(r) {
			// Behind a front, the front applied this rule to the real client.
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED", httpserve.LoopbackOnlyMessage(r), nil)
		}
		if msg := httpserve.CrossSite(r, api.cfg.Token == ""); msg != "" {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED", msg, nil)
		}
		return next(c)
	}
}

// Routes serves the journal, reset and health endpoints, the
// behaviors, the agents, the metrics and the OpenAPI description; another
// method on one of their paths is answered 405 with Allow.
func (api *API) Routes(group *echo.Group) {
	g := newMethodRouter(group)
	defer g.refuseOtherMethods()
	g.GET("/journal", api.serveJournal)
	g.GET("/journal/stream", api.serveJournalStream)
	g.GET("/journal/wire", api.serveWire)
	g.POST("/reset", api.serveReset)
	api.behaviorRoutes(g)
	api.agentRoutes(g)
	g.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "agents": api.agentNames()})
	})
}

// UIRoutes serves the live timeline page at Prefix/ui on e, guarded by
// GuardUIPage rather than by the control group's Guard; another method is
// answered 405 with Allow, as on the group's paths.
func (api *API) UIRoutes(e *echo.Echo) {
	r := newMethodRouter(e, api.GuardUIPage)
	r.GET(Prefix+"/ui", api.ServeUI)
	r.refuseOtherMethods()
}

// ServeUI is GET /_a2amock/ui: the live timeline page. It holds no data;
// everything it shows it reads from the journal's event stream.
func (api *API) ServeUI(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'")
	c.Response().WriteHeader(http.StatusOK)
	return ui.WriteLive(c.Response())
}

// GuardUIPage applies the control API's rules to the page, except that
// with a control token the page itself (static, no data) is served without
// it: a browser cannot send a bearer token when it opens a page, so the
// page takes it from its address (#token=…, a fragment never sent to the
// server) and sends it with its own request for the stream, which the
// token guards.
func (api *API) GuardUIPage(next echo.HandlerFunc) echo.HandlerFunc {
	guarded := api.Guard(next)
	return func(c echo.Context) error {
		if api.cfg.Token != "" && api.cfg.FrontSecret == "" {
			return next(c)
		}
		return guarded(c)
	}
}

// agentNames lists the hosted agents' names, in order.
func (api *API) agentNames() []string {
	all := api.host.Agents()
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.Name()
	}
	return out
}

// ErrorHandler answers the errors echo's routing and handlers return, in
// the shape of every control-API and HTTP+JSON error
// ({"error":{"code","status","message"}}); a control path with no route
// is told where the routes are described. A response already committed,
// or a connection a transport fault took over, gets nothing more.
func ErrorHandler(err error, c echo.Context) {
	// A transport fault (behaviors.Transport) may have taken the
	// connection over: nothing can be written to it any more.
	if c.Response().Committed || errors.Is(err, http.ErrHijacked) {
		return
	}
	status := http.StatusInternalServerError
	var he *echo.HTTPError
	if errors.As(err, &he) {
		status = he.Code
	}
	msg := http.StatusText(status)
	if status == http.StatusNotFound && strings.HasPrefix(c.Request().URL.Path, Prefix) {
		msg = "the control API has no route " + c.Request().Method + " " + c.Request().URL.Path + "; its routes are described at " + Prefix + "/openapi.json"
	}
	// The shape of every other control-API and HTTP+JSON error:
	// {"error":{"code","status","message"}}.
	_ = c.JSON(status, map[string]any{"error": map[string]any{"code": status, "status": wire.GRPCStatusName(status), "message": msg}})
}
