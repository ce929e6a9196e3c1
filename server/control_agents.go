package server

import (
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/control"
)

// MaxRuntimeAgents bounds the agents the control API may create on one
// server, so a runaway suite cannot grow it without end.
const MaxRuntimeAgents = 10_000

// roster holds the agents created at run time. The configured agents
// (Server.agents, Server.byName) never change after New, so requests read
// them without a lock; run-time agents are looked up under a read lock.
type roster struct {
	mu     sync.RWMutex
	byName map[string]*agent
	order  []*agent
	made   int
}

// FieldError is one problem with a field of a control-API request body
// (package control): Field is its path (e.g. card.skills[0].id), Line
// and Column locate it in a scenario text when known.
type FieldError = control.FieldError

// FieldErrors is every problem found in a body; a ScenarioLoader returns it
// so that the control API names the fields at fault.
type FieldErrors = control.FieldErrors

// ScenarioLoader reads a scenario document (YAML or JSON, the format of
// package scenario) into a server configuration. POST /_a2amock/agents uses
// it for cards, timelines and scenario fragments; without one, agents are
// created from a name and behavior specs only. Package scenario sets it on
// the configurations it builds (scenario.Loader).
type ScenarioLoader func(doc []byte) (Config, error)

// lookupAgent finds a configured or run-time agent by name.
func (s *Server) lookupAgent(name string) (*agent, bool) {
	if a, ok := s.byName[name]; ok {
		return a, true
	}
	s.roster.mu.RLock()
	a, ok := s.roster.byName[name]
	s.roster.mu.RUnlock()
	return a, ok
}

// allAgents lists the configured agents, then the run-time ones.
func (s *Server) allAgents() []*agent {
	s.roster.mu.RLock()
	defer s.roster.mu.RUnlock()
	out := make([]*agent, 0, len(s.agents)+len(s.roster.order))
	return append(append(out, s.agents...), s.roster.order...)
}

// AddAgent hosts a new agent at /agents/{name}/ while the server runs, with
// its own task store, behaviors and journal view. The name must be free
// and be 1-64 letters, digits, '.', '_' or '-'.
func (s *Server) AddAgent(ac AgentConfig) error {
	if fe := control.ValidName(ac.Name); fe != nil {
		return fe
	}
	if s.closed.Load() {
		return errors.New("the server is closed")
	}
	s.roster.mu.Lock()
	defer s.roster.mu.Unlock()
	if _, dup := s.byName[ac.Name]; dup {
		return errAgentExists
	}
	if _, dup := s.roster.byName[ac.Name]; dup {
		return errAgentExists
	}
	if len(s.roster.order) >= MaxRuntimeAgents {
		return errTooManyAgents
	}
	s.roster.made++
	a, err := newAgent(s, ac, len(s.cfg.Agents)+s.roster.made)
	if err != nil {
		return FieldErrors{{Field: "card", Message: err.Error()}}
	}
	a.dynamic = true
	a.journalFrom.Store(s.journal.LastSeq())
	if s.roster.byName == nil {
		s.roster.byName = map[string]*agent{}
	}
	s.roster.byName[ac.Name] = a
	s.roster.order = append(s.roster.order, a)
	return nil
}

var (
	errAgentExists   = control.ErrAgentExists
	errTooManyAgents = control.LimitError{Limit: MaxRuntimeAgents}
	errNoSuchAgent   = control.ErrNoSuchAgent
	errStaticAgent   = control.ErrStaticAgent
)

// RemoveAgent removes an agent created by AddAgent: its open streams end,
// sends waiting on its tasks return, its players stop and its tasks are
// forgotten. Its journal entries stay.
func (s *Server) RemoveAgent(name string) error {
	s.roster.mu.Lock()
	a, ok := s.roster.byName[name]
	if !ok {
		s.roster.mu.Unlock()
		if _, static := s.byName[name]; static {
			return errStaticAgent
		}
		return errNoSuchAgent
	}
	delete(s.roster.byName, name)
	s.roster.order = slices.DeleteFunc(s.roster.order, func(x *agent) bool { return x == a })
	s.metrics.Forget(name)
	s.roster.mu.Unlock()
	a.stop()
	a.reset()
	return nil
}

// agentConfigFrom builds the configuration of a run-time agent from a POST
// body (control.BuildAgent); nothing is created when it reports a problem.
func (s *Server) agentConfigFrom(in *control.AgentRequest) (AgentConfig, FieldErrors) {
	return control.BuildAgent[AgentConfig](in, agentSource{s})
}

// agentSource is the server as control.BuildAgent reads it.
type agentSource struct{ s *Server }

func (a agentSource) FreshName() string { return a.s.freshAgentName() }
func (a agentSource) HasLoader() bool   { return a.s.cfg.Scenarios != nil }
func (a agentSource) Seed() uint64      { return a.s.cfg.Seed }
func (a agentSource) ParseBehaviors(specs []string) ([]behaviors.Behavior, error) {
	return a.s.ParseBehaviors(specs)
}
func (a agentSource) Load(doc []byte) ([]AgentConfig, error) {
	cfg, err := a.s.cfg.Scenarios(doc)
	return cfg.Agents, err
}
func (a agentSource) Name(ac AgentConfig) string                    { return ac.Name }
func (a agentSource) Behaviors(ac AgentConfig) []behaviors.Behavior { return ac.Behaviors }
func (a agentSource) With(ac AgentConfig, name string, bs []behaviors.Behavior) AgentConfig {
	ac.Name, ac.Behaviors = name, bs
	return ac
}

// freshAgentName returns a generated name no agent has.
func (s *Server) freshAgentName() string {
	s.roster.mu.RLock()
	n := s.roster.made
	s.roster.mu.RUnlock()
	for {
		n++
		name := "agent-" + strconv.Itoa(n)
		if _, taken := s.lookupAgent(name); !taken {
			return name
		}
	}
}
