// Package testkit starts fake A2A agents inside Go tests, the way
// net/http/httptest starts servers:
//
//	mock := testkit.Start(t, testkit.WithAgents("planner", "coder"),
//		testkit.WithBehavior("coder", "skip-working"))
//	client := newMyClient(mock.CardURL("coder"))
//
// The mock listens on 127.0.0.1 on a free port and is closed by t.Cleanup.
// Options are functional; errors are reported through t.
package testkit

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Mock is a running fake A2A server with one or more agents.
type Mock struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234. The first
	// agent is served at its root.
	URL string

	t      testing.TB
	srv    *server.Server
	reg    *behaviors.Registry
	client *http.Client
	pool   *x509.CertPool
	// stop and set, when not nil, replace how Close stops the server and
	// how SetBehavior sets behaviors (a replay's, StartReplay).
	stop func() error
	set  func(agentName string, specs []string) error
	once sync.Once
}

// Option configures Start.
type Option func(*settings)

type settings struct {
	cfg     server.Config
	dialect wire.Dialect
	// pending are the behaviors of WithBehavior and WithBehaviorValue, in
	// the order given.
	pending []pendingBehavior
	mutate  map[string][]func(*cards.Card)
	errs    []error
}

// pendingBehavior is one behavior to attach once every agent is known:
// spec parsed through the registry, or value as given.
type pendingBehavior struct {
	agent string
	spec  string
	value behaviors.Behavior
}

func (s *settings) agent(name string) *server.AgentConfig {
	for i := range s.cfg.Agents {
		if s.cfg.Agents[i].Name == name {
			return &s.cfg.Agents[i]
		}
	}
	s.cfg.Agents = append(s.cfg.Agents, server.AgentConfig{Name: name})
	return &s.cfg.Agents[len(s.cfg.Agents)-1]
}

// WithSeed sets the run's seed: ids, generated cards, content and every
// random choice of a behavior follow from it.
func WithSeed(seed uint64) Option { return func(s *settings) { s.cfg.Seed = seed } }

// WithAgents hosts agents with these names, each with a card generated from
// the seed. The first is also served at the root.
func WithAgents(names ...string) Option {
	return func(s *settings) {
		for _, n := range names {
			s.agent(n)
		}
	}
}

// WithCard hosts an agent with the given declared card (its Name is used
// when name is empty).
func WithCard(name string, card *cards.Card) Option {
	return func(s *settings) {
		if name == "" {
			name = card.Name
		}
		s.agent(name).Card = card
	}
}

// WithSkill adds a skill to the named agent's card (generated from the seed
// when no card was given).
func WithSkill(agentName string, skill cards.Skill) Option {
	return func(s *settings) {
		s.agent(agentName)
		s.mutate[agentName] = append(s.mutate[agentName], func(c *cards.Card) { c.Skills = append(c.Skills, skill) })
	}
}

// WithCardChange edits the named agent's card before the server starts, e.g.
// to declare push notifications or state-transition history.
func WithCardChange(agentName string, change func(*cards.Card)) Option {
	return func(s *settings) {
		s.agent(agentName)
		s.mutate[agentName] = append(s.mutate[agentName], change)
	}
}

// WithDialect renders every agent's card in dialect d (1.0 by default).
func WithDialect(d wire.Dialect) Option { return func(s *settings) { s.dialect = d } }

// WithStepDelay sets the time between two states of the honest lifecycle
// (20ms without it; 0 or negative for none, as serve's --step-delay 0 and a
// scenario's stepDelay: 0s mean).
func WithStepDelay(d time.Duration) Option {
	return func(s *settings) {
		if d <= 0 {
			d = -1 // server.Config reads 0 as "the default"; the option given means none
		}
		s.cfg.StepDelay = d
	}
}

// WithClock hands the server a clock, e.g. a *timeline.FakeClock.
func WithClock(c timeline.Clock) Option { return func(s *settings) { s.cfg.Clock = c } }

// WithBehavior applies behavior specs ("name:key=value,...", see package
// behaviors) to the named agent; an empty name means the first agent. The
// agent must be configured (by WithAgents, WithCard, a scenario...): a
// name that is not makes Start fail, as does a spec whose agent= scope
// names another agent, since neither would ever act.
func WithBehavior(agentName string, specs ...string) Option {
	return func(s *settings) {
		for _, spec := range specs {
			s.pending = append(s.pending, pendingBehavior{agent: agentName, spec: spec})
		}
	}
}

// WithBehaviorValue applies behaviors built in Go to the named agent, which
// must be configured, as for WithBehavior.
func WithBehaviorValue(agentName string, bs ...behaviors.Behavior) Option {
	return func(s *settings) {
		for _, b := range bs {
			s.pending = append(s.pending, pendingBehavior{agent: agentName, value: b})
		}
	}
}

// WithTimeline scripts the named agent's skill: a new task of that skill
// plays tl instead of the honest lifecycle.
func WithTimeline(agentName, skillID string, tl timeline.Timeline) Option {
	return func(s *settings) {
		a := s.agent(agentName)
		if a.Timelines == nil {
			a.Timelines = map[string]timeline.Timeline{}
		}
		a.Timelines[skillID] = tl
	}
}

// WithGRPC also serves the gRPC binding on the mock's port and declares it
// in every v1.0 card (server.Config GRPC), with the agent's name as tenant
// below the root, and in a v0.3 card of the agent v0.3 calls reach (v0.3's
// a2a.v1.A2AService); Mock.URL stays the HTTP URL, the gRPC target
// (GRPCTarget) is its host:port.
func WithGRPC() Option { return func(s *settings) { s.cfg.GRPC = true } }

// WithSignedCards makes the mock sign every Agent Card (server.Config
// SignCards): keys derive from the seed, the JWKS is at each agent's
// /.well-known/jwks.json.
func WithSignedCards() Option { return func(s *settings) { s.cfg.SignCards = true } }

// WithServerConfig edits the server configuration directly, for settings no
// other option covers.
func WithServerConfig(f func(*server.Config)) Option { return func(s *settings) { f(&s.cfg) } }

// Start starts a mock A2A server on 127.0.0.1 and registers its Close with
// t.Cleanup. It fails the test if the configuration is invalid.
func Start(t testing.TB, opts ...Option) *Mock {
	t.Helper()
	m, err := newMock(opts, false)
	if err != nil {
		t.Fatalf("testkit.Start: %v", err)
		return nil
	}
	m.t = t
	t.Cleanup(m.Close)
	return m
}

// NewServer starts a mock like Start, for code that has no testing.TB
// (examples, programs); the caller must Close it.
func NewServer(opts ...Option) (*Mock, error) { return newMock(opts, false) }

func build(opts []Option) (*server.Server, *behaviors.Registry, error) {
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, nil, err
	}
	reg := cfg.Registry
	if reg == nil {
		reg = behaviors.Catalogue()
	}
	srv, err := server.New(cfg)
	return srv, reg, err
}

// buildConfig applies opts in order and returns the server configuration.
func buildConfig(opts []Option) (server.Config, error) {
	s := &settings{mutate: map[string][]func(*cards.Card){}}
	for _, o := range opts {
		o(s)
	}
	if err := errors.Join(s.errs...); err != nil {
		return server.Config{}, err
	}
	if len(s.cfg.Agents) == 0 {
		s.agent("agent")
	}
	first := s.cfg.Agents[0].Name
	for i := range s.cfg.Agents {
		a := &s.cfg.Agents[i]
		if a.Card == nil && (s.dialect != "" || len(s.mutate[a.Name]) > 0) {
			a.Card = cards.Generate(a.Name, s.cfg.Seed)
		}
		if a.Card != nil {
			c := *a.Card
			c.Skills = append([]cards.Skill(nil), c.Skills...)
			if s.dialect != "" {
				c.Dialect = s.dialect
			}
			for _, f := range s.mutate[a.Name] {
				f(&c)
			}
			a.Card = &c
		}
	}
	reg := s.cfg.Registry
	if reg == nil {
		reg = behaviors.Catalogue()
	}
	var errs []error
	for _, p := range s.pending {
		target := p.agent
		if target == "" {
			target = first
		}
		a := s.configured(target)
		if a == nil {
			errs = append(errs, fmt.Errorf("WithBehavior(%q): no agent %q is configured (agents: %s)", p.agent, target, s.agentList()))
			continue
		}
		b := p.value
		if b == nil {
			sc, err := reg.Parse(p.spec)
			if err != nil {
				errs = append(errs, fmt.Errorf("agent %s: %w", target, err))
				continue
			}
			if sc.ForOtherAgent(target) {
				errs = append(errs, fmt.Errorf("agent %s: %q is scoped to agent %q: it would never act", target, p.spec, sc.Scope.Agent))
				continue
			}
			b = sc
		}
		a.Behaviors = append(a.Behaviors, b)
	}
	if err := errors.Join(errs...); err != nil {
		return server.Config{}, err
	}
	if s.cfg.Scenarios == nil {
		s.cfg.Scenarios = scenario.Loader(s.cfg.Registry)
	}
	return s.cfg, nil
}

// Close shuts the server down; open streams end and every goroutine stops.
// It is safe to call more than once.
func (m *Mock) Close() {
	m.client.CloseIdleConnections()
	stop := m.srv.Close
	if m.stop != nil {
		// A replay's front stops once: its server's Close is idempotent,
		// the listener's second close an error.
		stop = func() (err error) {
			m.once.Do(func() { err = m.stop() })
			return err
		}
	}
	if err := stop(); err != nil && m.t != nil {
		m.t.Errorf("testkit: closing the mock: %v", err)
	}
}

// Server returns the underlying server.
func (m *Mock) Server() *server.Server { return m.srv }

// AgentURL returns the base URL of the named agent (its JSON-RPC endpoint is
// AgentURL + "/"); "" means the first agent, at the root, as in CardURL and
// WithBehavior.
func (m *Mock) AgentURL(name string) string {
	if name == "" {
		return m.URL
	}
	return m.URL + m.srv.AgentPath(name)
}

// GRPCTarget returns the host:port a gRPC client dials, as the v1.0 cards'
// GRPC interface names it (WithGRPC; over TLS with StartTLS, given
// CertPool). Every agent shares it: a request whose tenant is an agent's
// name is that agent's, one with none the first agent's.
func (m *Mock) GRPCTarget() string { return cards.GRPCTarget(m.URL) }

// CardURL returns the URL of the named agent's Agent Card; "" means the
// first agent, at the root.
func (m *Mock) CardURL(name string) string {
	if name == "" {
		return m.URL + "/.well-known/agent-card.json"
	}
	return m.AgentURL(name) + "/.well-known/agent-card.json"
}

// Journal returns everything the server recorded so far, oldest first.
func (m *Mock) Journal() []server.Entry { return m.srv.Journal().Entries() }

// SetBehavior replaces the named agent's behaviors while the mock runs
// (no specs clears them). An error fails the test of a mock made by Start
// and is returned in any case; nothing changes on error.
func (m *Mock) SetBehavior(agentName string, specs ...string) error {
	if m.t != nil {
		m.t.Helper()
	}
	err := m.setBehavior(agentName, specs)
	if err != nil && m.t != nil {
		m.t.Errorf("testkit: %v", err)
	}
	return err
}

func (m *Mock) setBehavior(agentName string, specs []string) error {
	if m.set != nil {
		return m.set(agentName, specs)
	}
	var bs []behaviors.Behavior
	for _, spec := range specs {
		b, err := m.reg.Parse(spec)
		if err != nil {
			return err
		}
		bs = append(bs, b)
	}
	return m.srv.SetBehaviors(agentName, bs)
}

// Reset forgets every task and clears the journal.
func (m *Mock) Reset() { m.srv.Reset() }

// configured returns the agent named name, or nil when none is.
func (s *settings) configured(name string) *server.AgentConfig {
	for i := range s.cfg.Agents {
		if s.cfg.Agents[i].Name == name {
			return &s.cfg.Agents[i]
		}
	}
	return nil
}

func (s *settings) agentList() string {
	names := make([]string, len(s.cfg.Agents))
	for i, a := range s.cfg.Agents {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}
