package server

import (
	"context"
	"strings"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// Gate refuses operations the card does not declare (engine.Agent.Gate;
// binding.Agent).
func (a *agent) Gate(op wire.Op) *wire.Error { return a.eng.Gate(op) }

// gateRequest is gate for a decoded request (engine.Agent.GateRequest).
func (a *agent) gateRequest(req *wire.Request) *wire.Error { return a.eng.GateRequest(req) }

// serveUnary answers every non-streaming operation in canonical form: the
// engine answers all but the extended card, which names this server's URLs.
func (a *agent) serveUnary(ctx context.Context, req *wire.Request, x *behaviors.Exchange, origin, base string) (*wire.Result, *wire.Error) {
	if req.Op != wire.OpExtendedCard {
		return a.eng.Unary(ctx, req, x)
	}
	if err := a.gateRequest(req); err != nil {
		return nil, err
	}
	b, err := a.renderCard(a.extended, origin, base)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "render extended card: %v", err)
	}
	if x.Signing != nil {
		if b, err = a.signCard(b, x, x.Signing); err != nil {
			return nil, wire.Errorf(wire.CodeInternal, "sign extended card: %v", err)
		}
	}
	return &wire.Result{Card: b}, nil
}

// renderCard renders c (the declared card by default) with the interfaces
// of this server as seen from origin and the agent's base path.
func (a *agent) renderCard(c *cards.Card, origin, base string) ([]byte, error) {
	cc := *c
	if cc.Dialect == "" {
		cc.Dialect = a.card.Dialect
	}
	desc := wire.Describe(cc.Dialect)
	bindings := desc.Bindings
	if len(bindings) == 0 {
		// An unknown dialect (a behavior's card edit) still names the
		// endpoint; rendering reports the dialect.
		bindings = []wire.Binding{wire.BindingJSONRPC}
	}
	cc.Interfaces = make([]cards.Interface, 0, len(bindings)+1)
	for _, b := range bindings {
		if !a.srv.declares(a, b) {
			continue
		}
		url := origin + base + "/"
		if b == wire.BindingREST {
			url = origin + base + restPrefix
		}
		cc.Interfaces = append(cc.Interfaces, cards.Interface{URL: url, Binding: b, Version: cc.Dialect})
	}
	if desc.GRPC && a.srv.cfg.GRPC && base == "" {
		// A gRPC interface is host:port: only the root agent has one.
		_, hostPort, _ := strings.Cut(origin, "://")
		cc.Interfaces = append(cc.Interfaces, cards.Interface{URL: hostPort, Binding: wire.BindingGRPC, Version: cc.Dialect})
	}
	return cards.Render(&cc)
}

// CardDialect is the dialect of the agent's card (httpbind.Agent).
func (a *agent) CardDialect() wire.Dialect { return a.card.Dialect }

// TaskDialect is the dialect task id was created in, "" when the agent
// holds no such task (httpbind.Agent).
func (a *agent) TaskDialect(id string) wire.Dialect { return a.eng.TaskDialect(id) }
