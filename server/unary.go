package server

import (
	"net/http"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/wire"
)

// Gate refuses operations the card does not declare (engine.Agent.Gate;
// binding.Agent).
func (a *agent) Gate(op wire.Op) *wire.Error { return a.eng.Gate(op) }

// gateRequest is gate for a decoded request (engine.Agent.GateRequest).
func (a *agent) gateRequest(req *wire.Request) *wire.Error { return a.eng.GateRequest(req) }

// serveUnary answers every non-streaming operation in canonical form: the
// engine answers all but the extended card, which names this server's URLs.
func (a *agent) serveUnary(r *http.Request, req *wire.Request, x *behaviors.Exchange, base string) (*wire.Result, *wire.Error) {
	if req.Op != wire.OpExtendedCard {
		return a.eng.Unary(r.Context(), req, x)
	}
	if err := a.gateRequest(req); err != nil {
		return nil, err
	}
	b, e := a.cards.Extended(a.extended, x, httpbind.Origin(r), base)
	if e != nil {
		return nil, e
	}
	return &wire.Result{Card: b}, nil
}

// CardDialect is the dialect of the agent's card (httpbind.Agent).
func (a *agent) CardDialect() wire.Dialect { return a.card.Dialect }

// TaskDialect is the dialect task id was created in, "" when the agent
// holds no such task (httpbind.Agent).
func (a *agent) TaskDialect(id string) wire.Dialect { return a.eng.TaskDialect(id) }
