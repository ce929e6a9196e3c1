package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// AddAgent hosts a new agent at /agents/{name}/ while the server runs, with
// its own task store, behaviors and journal view. The name must be free
// and be 1-64 letters, digits, '.', '_' or '-'.
func (s *Server) AddAgent(ac AgentConfig) error {
	if !agentNameRE.MatchString(ac.Name) {
		return FieldErrors{{Field: "name", Message: fmt.Sprintf("%q is not an agent name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", ac.Name)}}
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
// body; nothing is created when it reports a problem.
func (s *Server) agentConfigFrom(in *control.AgentRequest) (AgentConfig, FieldErrors) {
	name := in.Name
	if name == "" {
		name = s.freshAgentName()
	} else if !agentNameRE.MatchString(name) {
		return AgentConfig{}, FieldErrors{{Field: "name", Message: fmt.Sprintf("%q is not an agent name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)}}
	}
	present := func(r json.RawMessage) bool { return len(r) > 0 && !bytes.Equal(bytes.TrimSpace(r), []byte("null")) }
	var specs []string
	structured := false
	if present(in.Behaviors) {
		var list []json.RawMessage
		if err := json.Unmarshal(in.Behaviors, &list); err != nil {
			return AgentConfig{}, FieldErrors{{Field: "behaviors", Message: "behaviors must be a list of specs (\"name:key=value,...\") or {name, params, scope} objects"}}
		}
		for i, item := range list {
			var text string
			if err := json.Unmarshal(item, &text); err != nil {
				structured = true
				continue
			}
			if text == "" {
				return AgentConfig{}, FieldErrors{{Field: fmt.Sprintf("behaviors[%d]", i), Message: "a behavior spec is empty"}}
			}
			specs = append(specs, text)
		}
	}
	needLoader := in.Scenario != "" || present(in.Card) || present(in.Timelines) || structured
	if needLoader && s.cfg.Scenarios == nil {
		field := "scenario"
		switch {
		case present(in.Card):
			field = "card"
		case present(in.Timelines):
			field = "timelines"
		case structured:
			field = "behaviors"
		}
		return AgentConfig{}, FieldErrors{{Field: field, Message: "this server was built without a scenario loader (server.Config.Scenarios): give a name and behavior specs only"}}
	}
	if in.ScenarioAgent != "" && in.Scenario == "" {
		return AgentConfig{}, FieldErrors{{Field: "scenarioAgent", Message: "scenarioAgent picks an agent of scenario, which is not given"}}
	}
	if !needLoader {
		ac := AgentConfig{Name: name}
		bs, err := s.ParseBehaviors(specs)
		if err != nil {
			return AgentConfig{}, control.BehaviorFieldErrors(err)
		}
		ac.Behaviors = bs
		return ac, nil
	}
	if in.Scenario != "" {
		if present(in.Card) || present(in.Timelines) {
			field := "card"
			if !present(in.Card) {
				field = "timelines"
			}
			return AgentConfig{}, FieldErrors{{Field: field, Message: "give either scenario (the agent comes from it) or card and timelines, not both"}}
		}
		cfg, err := s.cfg.Scenarios([]byte(in.Scenario))
		if err != nil {
			return AgentConfig{}, control.PrefixFieldErrors(err, "scenario", "scenario")
		}
		pick := 0
		if in.ScenarioAgent != "" {
			pick = slices.IndexFunc(cfg.Agents, func(ac AgentConfig) bool { return ac.Name == in.ScenarioAgent })
			if pick < 0 {
				names := make([]string, len(cfg.Agents))
				for i, ac := range cfg.Agents {
					names[i] = ac.Name
				}
				return AgentConfig{}, FieldErrors{{Field: "scenarioAgent", Message: fmt.Sprintf("the scenario has no agent %q (agents: %s)", in.ScenarioAgent, strings.Join(names, ", "))}}
			}
		}
		ac := cfg.Agents[pick]
		ac.Name = name
		if present(in.Behaviors) {
			extra, ferr := s.loadBehaviors(name, in.Behaviors, specs, structured)
			if ferr != nil {
				return AgentConfig{}, ferr
			}
			ac.Behaviors = append(ac.Behaviors, extra...)
		}
		return ac, nil
	}
	doc := map[string]any{"name": name}
	if present(in.Card) {
		doc["card"] = in.Card
	}
	if present(in.Timelines) {
		doc["timelines"] = in.Timelines
	}
	if present(in.Behaviors) {
		doc["behaviors"] = in.Behaviors
	}
	cfg, err := s.loadAgentDoc(doc)
	if err != nil {
		return AgentConfig{}, err
	}
	return cfg.Agents[0], nil
}

// loadBehaviors parses the behaviors of a body, through the scenario loader
// when some are structured.
func (s *Server) loadBehaviors(name string, raw json.RawMessage, specs []string, structured bool) ([]behaviors.Behavior, FieldErrors) {
	if !structured {
		bs, err := s.ParseBehaviors(specs)
		if err != nil {
			return nil, control.BehaviorFieldErrors(err)
		}
		return bs, nil
	}
	cfg, ferr := s.loadAgentDoc(map[string]any{"name": name, "behaviors": raw})
	if ferr != nil {
		return nil, ferr
	}
	return cfg.Agents[0].Behaviors, nil
}

// loadAgentDoc runs one agent's fragment through the scenario loader, with
// the server's seed, and strips the "agents[0]." prefix from field paths.
func (s *Server) loadAgentDoc(agentDoc map[string]any) (Config, FieldErrors) {
	doc, err := json.Marshal(map[string]any{"server": map[string]any{"seed": s.cfg.Seed}, "agents": []any{agentDoc}})
	if err != nil {
		return Config{}, FieldErrors{{Field: "body", Message: err.Error()}}
	}
	cfg, err := s.cfg.Scenarios(doc)
	if err != nil {
		return Config{}, control.PrefixFieldErrors(err, "body", "")
	}
	if len(cfg.Agents) != 1 {
		return Config{}, FieldErrors{{Field: "body", Message: "the scenario loader did not return one agent"}}
	}
	return cfg, nil
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
