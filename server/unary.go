package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// gate refuses operations the card does not declare, as v1.0 requires
// (§4 capability gates); the same rule is applied to every dialect.
func (a *agent) gate(op wire.Op) *wire.Error {
	caps := a.card.Capabilities
	switch op {
	case wire.OpStream, wire.OpSubscribe:
		if !caps.Streaming {
			return wire.Errorf(wire.CodeUnsupportedOperation, "streaming is not supported: the agent card does not declare capabilities.streaming")
		}
	case wire.OpSetPushConfig, wire.OpGetPushConfig, wire.OpListPushConfigs, wire.OpDeletePush:
		if !caps.PushNotifications {
			return wire.Errorf(wire.CodePushNotSupported, "push notifications are not supported: the agent card does not declare capabilities.pushNotifications")
		}
	case wire.OpExtendedCard:
		if !caps.ExtendedAgentCard {
			return wire.Errorf(wire.CodeUnsupportedOperation, "the agent card does not declare an extended agent card")
		}
		if a.extended == nil {
			return wire.Errorf(wire.CodeExtendedCardNotConfigured, "no extended agent card is configured")
		}
	}
	return nil
}

// gateRequest is gate for a decoded request: a send whose configuration
// asks for push notifications is refused by an agent whose card does not
// declare them, instead of delivering pushes it said it does not support.
func (a *agent) gateRequest(req *wire.Request) *wire.Error {
	if err := a.gate(req.Op); err != nil {
		return err
	}
	if (req.Op == wire.OpSend || req.Op == wire.OpStream) && req.Config.PushConfig != nil && !a.card.Capabilities.PushNotifications {
		return wire.Errorf(wire.CodePushNotSupported, "push notifications are not supported: the agent card does not declare capabilities.pushNotifications, and the message's configuration asks for them")
	}
	return nil
}

// paramError reports whether e refuses a request's parameters (not its
// size or media type), which a capability the card does not declare
// overrides: capability before parameters.
func paramError(e *wire.Error) bool {
	return e.HTTPStatus != http.StatusRequestEntityTooLarge && e.HTTPStatus != http.StatusUnsupportedMediaType
}

// serveUnary answers every non-streaming operation in canonical form.
func (a *agent) serveUnary(ctx context.Context, req *wire.Request, x *behaviors.Exchange, origin, base string) (*wire.Result, *wire.Error) {
	if err := a.gateRequest(req); err != nil {
		return nil, err
	}
	switch req.Op {
	case wire.OpSend:
		return a.send(ctx, req, x)
	case wire.OpGetTask:
		t, err := a.taskSnapshot(req.TaskID, req.HistoryLength)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Task: t}, nil
	case wire.OpListTasks:
		p, err := a.list(req.List)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Page: p}, nil
	case wire.OpCancelTask:
		t, err := a.cancel(x, req.TaskID)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Task: t}, nil
	case wire.OpSetPushConfig:
		if req.PushConfig == nil {
			return nil, wire.ErrInvalidParams("pushNotificationConfig", "is required")
		}
		if err := a.srv.checkPushURL(req.PushConfig.URL, pushURLField(req.Dialect, false)); err != nil {
			return nil, err
		}
		pc, err := a.setPush(*req.PushConfig)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfig: pc}, nil
	case wire.OpGetPushConfig:
		pc, err := a.getPush(req.TaskID, req.PushConfigID)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfig: pc}, nil
	case wire.OpListPushConfigs:
		pcs, err := a.pushConfigs(req.TaskID)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfigs: pcs}, nil
	case wire.OpDeletePush:
		if err := a.deletePush(req.TaskID, req.PushConfigID); err != nil {
			return nil, err
		}
		return &wire.Result{Empty: true}, nil
	case wire.OpExtendedCard:
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
	return nil, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", req.Method)
}

// send answers a unary send: it waits until the task is terminal or
// interrupted (or its timeline ran out) unless the client asked to return
// immediately.
func (a *agent) send(ctx context.Context, req *wire.Request, x *behaviors.Exchange) (*wire.Result, *wire.Error) {
	d, _ := a.decide(x, req)
	a.recordDecision(req, x, d)
	switch d.Kind {
	case timeline.DecideReject:
		return nil, d.Err
	case timeline.DecideMessage:
		return &wire.Result{Message: a.replyMessage(req.Message)}, nil
	case timeline.DecideDuplicate:
		return a.answerDuplicate(ctx, req, d.TaskID)
	}
	sub := newWaiter()
	id, err := a.start(req, x, d, sub, nil)
	if err != nil {
		return nil, err
	}
	defer a.unsubscribe(id, sub)
	if !req.Config.ReturnImmediately {
		a.waitSettled(ctx, id, sub, sub.taken)
	}
	if x.Hooks().Push.BeforeReply {
		a.waitFirstPush(ctx, id)
	}
	t, terr := a.taskSnapshot(id, req.Config.HistoryLength)
	if terr != nil {
		return nil, terr
	}
	return &wire.Result{Task: t}, nil
}

// waitSettled returns once the task is terminal, or interrupted in a state
// it reached after its first taken status changes (v1.0 SendMessage: a blocking
// send waits for the task to reach a terminal or interrupted state after
// the message; the input-required a continuation answers is not one), or
// once its player has stopped, the client has gone or the server closes.
// taken < 0 accepts the state the task is in. sub was attached before the
// task's first step and start has returned, so the playing flag is settled:
// a player either ran inline or runs in its goroutine.
func (a *agent) waitSettled(ctx context.Context, id string, sub *subscriber, taken int64) {
	for {
		st, moves, playing, ok := a.state(id)
		if !ok || st.Terminal() || st.Interrupted() && moves > taken || !playing {
			return
		}
		select {
		case _, ok := <-sub.ch:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		case <-a.ctx.Done():
			return
		}
	}
}

func (a *agent) replyMessage(m *wire.Message) *wire.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctxID := m.ContextID
	if ctxID == "" {
		ctxID = a.newIDLocked()
	}
	return &wire.Message{MessageID: a.newIDLocked(), ContextID: ctxID, Role: wire.RoleAgent,
		Parts: []wire.Part{wire.TextPart(a.sentenceLocked())}}
}

func (a *agent) recordDecision(req *wire.Request, x *behaviors.Exchange, d timeline.Decision) {
	e := Entry{Agent: a.name, Kind: EntryDecision, Op: req.Op, Dialect: req.Dialect, Binding: req.Binding,
		TaskID: d.TaskID, Detail: string(d.Kind) + ": " + d.Reason, NotActed: x.NotActed()}
	if req.Message != nil {
		e.RefTaskID = req.Message.TaskID
	}
	if d.Err != nil {
		e.ErrorCode = d.Err.Code
	}
	a.srv.record(e)
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
		cc.Interfaces = append(cc.Interfaces, cards.Interface{URL: hostPort, Binding: BindingGRPC, Version: cc.Dialect})
	}
	return cards.Render(&cc)
}
