package server

import (
	"errors"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/control"
	"github.com/a2amock/a2amock/server/internal/roster"
)

// MaxRuntimeAgents bounds the agents the control API may create on one
// server, so a runaway suite cannot grow it without end.
const MaxRuntimeAgents = 10_000

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
	err := s.agents.Add(ac.Name, MaxRuntimeAgents, func(made int) (*agent, error) {
		a, err := newAgent(s, ac, len(s.cfg.Agents)+made)
		if err != nil {
			return nil, FieldErrors{{Field: "card", Message: err.Error()}}
		}
		a.dynamic = true
		a.journalFrom.Store(s.journal.LastSeq())
		return a, nil
	})
	switch {
	case errors.Is(err, roster.ErrExists):
		return errAgentExists
	case errors.Is(err, roster.ErrTooMany):
		return errTooManyAgents
	}
	return err
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
	a, err := s.agents.Remove(name, func(*agent) { s.metrics.Forget(name) })
	switch {
	case errors.Is(err, roster.ErrStatic):
		return errStaticAgent
	case err != nil:
		return errNoSuchAgent
	}
	a.stop()
	a.Reset()
	return nil
}

// agentConfigFrom builds the configuration of a run-time agent from a POST
// body (control.BuildAgent); nothing is created when it reports a problem.
func (s *Server) agentConfigFrom(in *control.AgentRequest) (AgentConfig, FieldErrors) {
	return control.BuildAgent[AgentConfig](in, agentSource{s})
}

// agentSource is the server as control.BuildAgent reads it.
type agentSource struct{ s *Server }

func (a agentSource) FreshName() string { return a.s.agents.FreshName() }
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
