// Package server is the fake A2A agent: HTTP wiring (echo), the JSON-RPC and
// HTTP+JSON bindings, the agents with their task stores, the timeline player,
// the journal and the control API.
//
// A request travels one way: binding → dialect codec (wire → canonical) →
// agent decision (behaviors may change it) → timeline (behaviors may
// transform it) → player → events → journal → codec (canonical → wire) →
// response or SSE stream. Echo stays inside this package.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/answer"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/server/internal/grpcbind"
	"github.com/a2amock/a2amock/server/internal/h2serve"
	"github.com/a2amock/a2amock/server/internal/metrics"
	"github.com/a2amock/a2amock/server/internal/roster"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Config configures a Server. The zero value serves one generated honest
// agent named "agent" with seed 0.
type Config struct {
	// Seed drives every id, every generated card and content and every
	// random choice of a behavior.
	Seed uint64
	// Agents lists the agents to host. The first one is also served at the
	// root. Empty means one default agent.
	Agents []AgentConfig
	// StepDelay is the time between two states of the honest lifecycle.
	// Zero means the default of 20ms; a negative value means no delay.
	StepDelay time.Duration
	// Clock is the source of time; nil means the wall clock.
	Clock timeline.Clock
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
	// MaxBodyBytes bounds request bodies; 0 means 4 MiB.
	MaxBodyBytes int64
	// GRPC also serves the gRPC binding (v1.0's lf.a2a.v1.A2AService, v0.3's
	// a2a.v1.A2AService) on the same port, h2c or TLS, declared as GRPC at
	// host:port in every v1.0 card (naming the agent as tenant below the
	// root) and in the v0.3 card of the agent v0.3's tenantless calls reach
	// (grpcbind). Off by default: cards and clients' choices are unchanged.
	GRPC bool
	// MaxMessageBytes bounds the content (parts and metadata) of a
	// message, and MaxPartBytes that of each part, on both bindings; a
	// larger one is answered with InvalidParamsError. 0 means
	// DefaultMaxMessageBytes (2 MiB) and DefaultMaxPartBytes (1 MiB). Ids
	// are bounded by MaxIDBytes.
	MaxMessageBytes int
	MaxPartBytes    int
	// JournalRetention bounds the journal; 0 means 100,000 entries.
	JournalRetention int
	// TaskRetention bounds the tasks kept per agent: beyond it the oldest
	// terminal tasks are forgotten. 0 means 10,000.
	TaskRetention int
	// TaskRetentionBytes bounds the content (parts, metadata, ids) of the
	// tasks kept per agent: beyond it the oldest terminal tasks are
	// forgotten, then the oldest running ones dropped (journaled as
	// EntryDropped). 0 means DefaultTaskRetentionBytes (256 MiB).
	TaskRetentionBytes int64
	// MaxRunningTasks caps the tasks per agent that are not in a terminal
	// state: a new task beyond it drops the oldest running task (its
	// player stops, its streams end, EntryDropped is journaled). 0 means
	// DefaultMaxRunningTasks (100,000).
	MaxRunningTasks int
	// ReadTimeout bounds the reading of a request, body included (its
	// headers are bounded by 10s); once the body is read a response may
	// last (streams, blocking sends). 0 means 30s.
	ReadTimeout time.Duration
	// IdleTimeout closes kept-alive connections that carry no request;
	// 0 means 60s.
	IdleTimeout time.Duration
	// KeepAliveInterval is the period of SSE keep-alive comments on streams
	// held open; 0 means 15s.
	KeepAliveInterval time.Duration
	// StrictVersion rejects a v1.0 method sent without an A2A-Version header
	// (a missing header means 0.3) with VersionNotSupportedError, as
	// a2a-python does; by default such requests are served, as a2a-go does.
	StrictVersion bool
	// SignCards signs every Agent Card served (and the extended card) as
	// v1.0 §8.4 describes: a JWS over the JCS form of the card, with a key
	// derived from Seed and the agent's name, whose public half is served
	// as a JWKS at the agent's /.well-known/jwks.json (the jku the
	// signature names). See package cardsig.
	SignCards bool
	// ControlToken, when set, is the bearer token the control API
	// (/_a2amock/...) requires; when empty the control API only answers
	// requests from loopback addresses.
	ControlToken string
	// ControlFrontSecret, when set, makes the control API answer only calls
	// that carry it in the ControlFrontHeader header. A process that puts a
	// front before the server (a2amock serve --gateway) sets it to a random
	// per-process value and adds it to the control calls it vouches for,
	// after applying the loopback rule to the real client; a request whose
	// path only became /_a2amock/... after the front rewrote it is then
	// refused, whatever address it came from.
	ControlFrontSecret string
	// Registry resolves behavior names at run time (control API, CLI);
	// nil means behaviors.Catalogue().
	Registry *behaviors.Registry
	// PushTimeout bounds each push-notification POST; 0 means 2s.
	PushTimeout time.Duration
	// PushRetries is how many times a failed push delivery is retried,
	// with exponential backoff from PushBackoff; 0 means one attempt.
	PushRetries int
	// PushBackoff is the first retry's wait; 0 means 100ms.
	PushBackoff time.Duration
	// AllowPushTo lists webhook hosts (names, IPs or CIDRs) besides
	// loopback that push configs may name.
	AllowPushTo []string
	// Scenarios reads scenario documents for POST /_a2amock/agents (cards,
	// timelines, scenario fragments); nil accepts names and behavior specs
	// only. scenario.Config sets it.
	Scenarios ScenarioLoader
	// AllowAnyPushHost lets push configs name any host: the mock then
	// forwards to wherever a scenario says, so use it only on purpose.
	AllowAnyPushHost bool
}

// AgentConfig configures one hosted agent.
type AgentConfig struct {
	// Name is the agent's name; it is also its path segment
	// (/agents/{name}/...).
	Name string
	// Card is the declared card; nil generates one from the seed and Name.
	// Its Interfaces are filled in from the server's address.
	Card *cards.Card
	// ExtendedCard is served by GetExtendedAgentCard when the card declares
	// capabilities.extendedAgentCard; nil then answers
	// ExtendedAgentCardNotConfiguredError.
	ExtendedCard *cards.Card
	// Behaviors are applied to every request of this agent, in order.
	Behaviors []behaviors.Behavior
	// Timelines script the agent per skill id: a new task of that skill plays
	// the given timeline instead of the honest one.
	Timelines map[string]timeline.Timeline
	// Scripts are scripted timelines matched by skill, message text and
	// whether the message starts a task or continues one; the first match
	// wins, and Scripts are tried before Timelines.
	Scripts []ScriptedTimeline
	// EnforceAuth makes the agent require the credentials its card's
	// securitySchemes declare (see auth.go); card paths stay public.
	EnforceAuth bool
	// Bindings are the bindings the card declares and the agent serves:
	// wire.BindingJSONRPC and/or wire.BindingREST (v1.0 and v0.3 cards);
	// empty means both for those, JSON-RPC for the others. A request of a
	// binding not listed is answered 404.
	Bindings []wire.Binding
}

// Server hosts one or more fake agents.
type Server struct {
	cfg     Config
	clock   timeline.Clock
	log     *slog.Logger
	echo    *echo.Echo
	journal *Journal
	// rec writes the request path's entries into journal (package
	// entries), numbering the requests.
	rec entries.Writer
	// wire keeps the raw bytes of the last exchanges (GET /_a2amock/journal/wire).
	wire *wirecap.Capture

	ctx      context.Context // canceled by Close: ends players and streams
	stop     context.CancelFunc
	players  sync.WaitGroup
	streams  sync.WaitGroup
	httpSrv  *httpserve.Server
	listener net.Listener
	closed   atomic.Bool
	url      string
	// agents holds the configured agents and those created through the
	// control API (package roster); metrics the counters GET
	// /_a2amock/metrics serves (package metrics).
	agents  roster.Roster[*agent]
	metrics metrics.Store
	// grpc is the gRPC binding (package grpcbind).
	grpc *grpcbind.Binding
	// host is the server's core as the bindings see it (host.go); answer
	// answers what routing hands to an agent (package answer).
	host   binding.Host
	answer answer.Server
}

// New builds a server from cfg. It does not listen; see Start or Handler.
func New(cfg Config) (*Server, error) {
	if cfg.StepDelay == 0 {
		cfg.StepDelay = 20 * time.Millisecond
	} else if cfg.StepDelay < 0 {
		cfg.StepDelay = 0
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 4 << 20
	}
	if cfg.TaskRetention <= 0 {
		cfg.TaskRetention = 10_000
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxPartBytes <= 0 {
		cfg.MaxPartBytes = DefaultMaxPartBytes
	}
	if cfg.TaskRetentionBytes <= 0 {
		cfg.TaskRetentionBytes = DefaultTaskRetentionBytes
	}
	if cfg.MaxRunningTasks <= 0 {
		cfg.MaxRunningTasks = DefaultMaxRunningTasks
	}
	if cfg.KeepAliveInterval <= 0 {
		cfg.KeepAliveInterval = 15 * time.Second
	}
	if len(cfg.Agents) == 0 {
		cfg.Agents = []AgentConfig{{Name: "agent"}}
	}
	s := &Server{
		cfg:     cfg,
		clock:   cfg.Clock,
		log:     cfg.Logger,
		journal: journal.New(cfg.JournalRetention),
		wire:    wirecap.New(),
	}
	s.host = bindingHost{s}
	if s.clock == nil {
		s.clock = timeline.RealClock{}
	}
	s.rec.Journal, s.rec.Metrics, s.rec.Clock, s.rec.MaxBodyBytes = s.journal, &s.metrics, s.clock, cfg.MaxBodyBytes
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.grpc = grpcbind.New(s.host)
	s.answer = answer.Server{Rec: &s.rec, Host: s.host, Ctx: s.ctx, KeepAlive: cfg.KeepAliveInterval,
		MaxPartBytes: cfg.MaxPartBytes, MaxMessageBytes: cfg.MaxMessageBytes}
	var errs []error
	var names []string
	var agents []*agent
	for i, ac := range cfg.Agents {
		if ac.Name == "" {
			errs = append(errs, fmt.Errorf("agents[%d]: name is empty", i))
			continue
		}
		if strings.ContainsAny(ac.Name, "/?#% ") {
			errs = append(errs, fmt.Errorf("agents[%d]: name %q must be a single URL path segment", i, ac.Name))
			continue
		}
		if slices.Contains(names, ac.Name) {
			errs = append(errs, fmt.Errorf("agents[%d]: duplicate agent name %q", i, ac.Name))
			continue
		}
		a, err := newAgent(s, ac, i)
		if err == nil {
			err = binding.CheckBindings(ac.Bindings, a.card.Dialect)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("agents[%d] (%s): %w", i, ac.Name, err))
			continue
		}
		names, agents = append(names, ac.Name), append(agents, a)
	}
	if err := errors.Join(errs...); err != nil {
		s.stop()
		return nil, err
	}
	s.agents.Configure(names, agents)
	s.echo = s.routes()
	return s, nil
}

// Handler returns the server's HTTP handler, for embedding in another server
// or an httptest.Server.
func (s *Server) Handler() http.Handler { return s.echo }

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves in the
// background until Close.
func (s *Server) Start(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	s.Serve(ln)
	return nil
}

// Serve serves on ln in the background until Close.
func (s *Server) Serve(ln net.Listener) { s.serve(ln, "http://") }

// ServeTLS serves HTTPS on ln with cfg (which must hold a certificate) in
// the background until Close; URL and the cards' interface URLs are https.
// With Config.GRPC, h2 is offered after cfg's protocols (h2serve.OfferH2).
func (s *Server) ServeTLS(ln net.Listener, cfg *tls.Config) {
	if s.cfg.GRPC {
		cfg = h2serve.OfferH2(cfg)
	}
	s.serve(tls.NewListener(ln, cfg), "https://")
}

func (s *Server) serve(ln net.Listener, scheme string) {
	s.listener = ln
	s.url = scheme + httpserve.DialAddr(ln.Addr().String())
	s.httpSrv = httpserve.New(s.echo, httpserve.Timeouts{Read: s.cfg.ReadTimeout, Idle: s.cfg.IdleTimeout}, s.ctx, s.log)
	s.ServeGRPCWith(s.httpSrv.Server)
	s.streams.Add(1)
	go func() {
		defer s.streams.Done()
		if err := s.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
}

// ServeGRPCWith makes hs, an http.Server whose handler passes requests
// on to Handler, serve the gRPC binding as Serve does when Config.GRPC is
// set: h2c with prior knowledge and h2 over TLS, on the mock's own HTTP/2
// server (package h2serve). a2amock conform records the wire this way.
func (s *Server) ServeGRPCWith(hs *http.Server) {
	if s.cfg.GRPC {
		h2serve.Enable(hs)
	}
}

// URL is the base URL of a started server, e.g. http://127.0.0.1:40123.
func (s *Server) URL() string { return s.url }

// Journal returns the server's journal.
func (s *Server) Journal() *Journal { return s.journal }

// AgentNames lists the hosted agents in order: the configured ones, then
// those created through the control API.
func (s *Server) AgentNames() []string {
	all := s.agents.All()
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.name
	}
	return out
}

// AgentPath returns the base path of the named agent ("/agents/{name}").
func (s *Server) AgentPath(name string) string { return "/agents/" + name }

// SetBehaviors replaces the behaviors of the named agent while the server
// runs.
func (s *Server) SetBehaviors(agentName string, bs []behaviors.Behavior) error {
	a, ok := s.agents.Lookup(agentName)
	if !ok {
		return fmt.Errorf("no agent named %q (agents: %s)", agentName, strings.Join(s.AgentNames(), ", "))
	}
	a.SetBehaviors(bs)
	return nil
}

// Behaviors returns the behaviors of the named agent.
func (s *Server) Behaviors(agentName string) []behaviors.Behavior {
	if a, ok := s.agents.Lookup(agentName); ok {
		return a.bhv.Load().List()
	}
	return nil
}

// Card returns the declared card of the named agent (without interfaces).
func (s *Server) Card(agentName string) *cards.Card {
	if a, ok := s.agents.Lookup(agentName); ok {
		return a.card
	}
	return nil
}

// Reset forgets every task and clears the journal; players of running tasks
// stop. Agents created through the control API stay, with no tasks.
func (s *Server) Reset() {
	for _, a := range s.agents.All() {
		a.Reset()
		a.journalFrom.Store(0)
	}
	s.journal.Reset()
	s.wire.Reset()
	s.metrics.ResetPending()
	// Request numbers start over with the journal, so a run after a reset
	// journals exactly what the same run on a fresh server does.
	s.rec.ResetRequests()
}

// Close stops the server: open streams end cleanly, players stop, and Close
// returns when every goroutine the server started has ended.
func (s *Server) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.stop()
	// Shutdown first ends what it would wait for: connections that never
	// carried a request, and reads of requests still arriving.
	var err error
	if s.httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = s.httpSrv.Shutdown(ctx)
		cancel()
	}
	s.players.Wait()
	s.streams.Wait()
	return err
}
