package server

import (
	"errors"
	"io"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/control"
	"github.com/a2amock/a2amock/server/internal/metrics"
	"github.com/a2amock/a2amock/server/internal/wirecap"
)

// ControlFrontHeader is the header by which a front that proxies the
// control API (the gateway of a2amock serve --gateway) vouches for a control
// call; see Config.ControlFrontSecret.
const ControlFrontHeader = control.FrontHeader

// TotalCountHeader is the response header of GET /_a2amock/journal that
// holds how many entries matched the filter, before ?limit= cut the list.
const TotalCountHeader = control.TotalCountHeader

// controlHost is the server as its control API sees it (control.Host).
type controlHost struct{ s *Server }

func (h controlHost) Journal() *journal.Journal { return h.s.journal }
func (h controlHost) Done() <-chan struct{}     { return h.s.ctx.Done() }
func (h controlHost) Root() control.Agent       { return h.s.agents.Root() }
func (h controlHost) Reset()                    { h.s.Reset() }
func (h controlHost) Registry() *behaviors.Registry {
	return h.s.registry()
}
func (h controlHost) ParseBehaviors(specs []string) ([]behaviors.Behavior, error) {
	return h.s.ParseBehaviors(specs)
}
func (h controlHost) RemoveAgent(name string) error { return h.s.RemoveAgent(name) }
func (h controlHost) MaxBodyBytes() int64           { return h.s.cfg.MaxBodyBytes }
func (h controlHost) AgentPath(name string) string  { return h.s.AgentPath(name) }
func (h controlHost) CardPath() string              { return cardPath }
func (h controlHost) OpenAPI() []byte               { return OpenAPI() }
func (h controlHost) Wire(req, seq int64) (wirecap.Exchange, bool) {
	return h.s.wire.Get(req, seq)
}

func (h controlHost) Lookup(name string) (control.Agent, bool) {
	a, ok := h.s.agents.Lookup(name)
	if !ok {
		return nil, false
	}
	return a, true
}

func (h controlHost) Agents() []control.Agent {
	all := h.s.agents.All()
	out := make([]control.Agent, len(all))
	for i, a := range all {
		out[i] = a
	}
	return out
}

// CreateAgent builds the agent's configuration from the body and hosts
// it; a generated name that a concurrent create took first is generated
// again. in.Name is set to the name tried last.
func (h controlHost) CreateAgent(in *control.AgentRequest) (control.Agent, error) {
	s := h.s
	named := in.Name != ""
	ac, ferr := s.agentConfigFrom(in)
	if ferr != nil {
		return nil, ferr
	}
	err := s.AddAgent(ac)
	for try := 0; !named && errors.Is(err, errAgentExists) && try < 100; try++ {
		ac.Name = s.agents.FreshName()
		err = s.AddAgent(ac)
	}
	in.Name = ac.Name
	if err != nil {
		return nil, err
	}
	a, ok := s.agents.Lookup(ac.Name)
	if !ok {
		return nil, errNoSuchAgent
	}
	return a, nil
}

// WriteMetrics writes the counts kept as the journal is written (package
// metrics) and the agents' state now.
func (h controlHost) WriteMetrics(w io.Writer) error {
	agents := h.s.agents.All()
	live := make([]metrics.Agent, len(agents))
	for i, a := range agents {
		live[i] = metrics.Agent{Name: a.name, Runtime: a.dynamic}
		live[i].States, live[i].Streams = a.eng.Stats()
	}
	return h.s.metrics.Write(w, live, h.s.journal)
}

// The agent as the control API sees it (control.Agent).

func (a *agent) Name() string          { return a.name }
func (a *agent) Dynamic() bool         { return a.dynamic }
func (a *agent) Dialect() string       { return string(a.card.Dialect) }
func (a *agent) Behaviors() *acted.Set { return a.bhv.Load() }
func (a *agent) JournalFrom() int64    { return a.journalFrom.Load() }
func (a *agent) SetJournalFrom(seq int64) {
	a.journalFrom.Store(seq)
}
func (a *agent) Skills() []string { return a.card.SkillIDs() }
