package server

import (
	"context"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/wire"
)

// The agent as the bindings (binding.Agent, httpbind.Agent) and its
// answers (answer.Agent) see it.

// Gate refuses operations the card does not declare (engine.Agent.Gate;
// binding.Agent).
func (a *agent) Gate(op wire.Op) *wire.Error { return a.eng.Gate(op) }

// CardDialect is the dialect of the agent's card (httpbind.Agent).
func (a *agent) CardDialect() wire.Dialect { return a.card.Dialect }

// TaskDialect is the dialect task id was created in, "" when the agent
// holds no such task (httpbind.Agent).
func (a *agent) TaskDialect(id string) wire.Dialect { return a.eng.TaskDialect(id) }

// Engine is the agent's engine: its tasks and player (answer.Agent).
func (a *agent) Engine() *engine.Agent { return a.eng }

// Cards serves the agent's card (answer.Agent).
func (a *agent) Cards() *cardserve.Agent { return &a.cards }

// ExtendedCard is the configured extended card, nil when none
// (answer.Agent).
func (a *agent) ExtendedCard() *cards.Card { return a.extended }

// Context ends when the agent is removed or the server closes
// (answer.Agent).
func (a *agent) Context() context.Context { return a.ctx }

// EnforcesAuth implements answer.Agent: AgentConfig.EnforceAuth, which
// agents made through the control API never set.
func (a *agent) EnforcesAuth() bool {
	return a.index < len(a.srv.cfg.Agents) && a.srv.cfg.Agents[a.index].EnforceAuth
}
