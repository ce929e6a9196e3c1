package server

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync/atomic"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// Defaults of the store's bounds (Config.MaxRunningTasks,
// Config.TaskRetentionBytes).
const (
	DefaultMaxRunningTasks    = 100_000
	DefaultTaskRetentionBytes = 256 << 20
)

// ScriptedTimeline is a timeline played for the messages it matches, as a
// scenario file writes it (engine.ScriptedTimeline).
type ScriptedTimeline = engine.ScriptedTimeline

// agent is one hosted fake agent as the transports see it: its card, its
// behaviors and its card-serving state; its tasks, player and push queue
// are its engine's.
type agent struct {
	srv      *Server
	eng      *engine.Agent
	name     string
	index    int
	card     *cards.Card
	extended *cards.Card
	seed     uint64

	bhv atomic.Pointer[acted.Set]

	// ctx ends when the agent is removed (control API) or the server
	// closes: its players, waiting sends and open streams watch it.
	ctx  context.Context
	stop context.CancelFunc
	// dynamic agents were created through the control API and may be
	// removed; journalFrom is the journal sequence number before the agent
	// was created or last reset: its journal view starts after it.
	dynamic     bool
	journalFrom atomic.Int64

	// cards serves its card: rendered, signed, with validators (package
	// cardserve).
	cards cardserve.Agent
}

func newAgent(s *Server, ac AgentConfig, index int) (*agent, error) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(ac.Name))
	seed := s.cfg.Seed ^ h.Sum64()
	card := ac.Card
	if card == nil {
		card = cards.Generate(ac.Name, s.cfg.Seed)
	} else {
		c := *card
		card = &c
	}
	if card.Dialect == "" {
		card.Dialect = wire.Newest()
	}
	if codecs.For(card.Dialect) == nil {
		return nil, fmt.Errorf("card dialect %q is not one of 1.0, 0.3, 0.2, 0.1", card.Dialect)
	}
	a := &agent{
		srv:      s,
		name:     ac.Name,
		index:    index,
		card:     card,
		extended: ac.ExtendedCard,
		seed:     seed,
	}
	a.cards = cardserve.Agent{Card: card, Signer: cardserve.Signer{Seed: s.cfg.Seed, Name: ac.Name, Always: s.cfg.SignCards},
		Interfaces: cardserve.Interfaces{Declares: func(b wire.Binding) bool { return s.declares(a, b) }, RESTPath: restPrefix, GRPC: s.cfg.GRPC, Tenant: ac.Name,
			Reaches: func(d wire.Dialect) bool { return s.grpc.Reaches(a, d) }}}
	a.ctx, a.stop = context.WithCancel(s.ctx)
	ps := s.pushSender()
	eng, err := engine.New(engine.Config{
		Name:      ac.Name,
		Card:      card,
		Extended:  ac.ExtendedCard,
		Timelines: ac.Timelines,
		Scripts:   ac.Scripts,
		Seed:      seed,
		Clock:     s.clock,
		StepDelay: s.cfg.StepDelay,
		Limits: engine.Limits{TaskRetention: s.cfg.TaskRetention, MaxRunningTasks: s.cfg.MaxRunningTasks,
			TaskRetentionBytes: s.cfg.TaskRetentionBytes, MaxPushConfigs: MaxPushConfigsPerTask},
		Context:        a.ctx,
		HostContext:    s.ctx,
		Players:        &s.players,
		Record:         func(n engine.Note) { s.rec.Record(entries.Note(ac.Name, n)) },
		Deliverer:      pushDeliverer{s},
		CheckPushURL:   ps.Policy.CheckURL,
		FirstPushBound: ps.FirstBound(),
	})
	if err != nil {
		a.stop()
		return nil, err
	}
	a.eng = eng
	a.SetBehaviors(ac.Behaviors)
	return a, nil
}

// Reset forgets the agent's tasks and its behaviors' state
// (control.Agent).
func (a *agent) Reset() {
	a.eng.Reset()
	// Behaviors that remember tasks or count requests start over with the
	// agent, so a reset run repeats the first one.
	for _, b := range a.bhv.Load().List() {
		if r, ok := b.(behaviors.Resetter); ok {
			r.Reset()
		}
	}
}

// SetBehaviors replaces the agent's behaviors (control.Agent).
func (a *agent) SetBehaviors(bs []behaviors.Behavior) {
	a.cards.Versions.SetSince(a.srv.clock.Now())
	a.bhv.Store(acted.NewSet(defaultRegistry(), bs))
}

// Exchange builds the behaviors' view of a request and applies the agent's
// behaviors to it; the report says which acted and which were out of scope
// (answer.Agent).
func (a *agent) Exchange(op wire.Op, req *wire.Request, in behaviors.Incoming) (*behaviors.Exchange, acted.Report) {
	bs := a.bhv.Load()
	call := a.eng.NextCall(op)
	x := &behaviors.Exchange{
		Agent:   a.name,
		Op:      op,
		Request: req,
		HTTP:    in,
		Card:    a.card,
		Call:    call,
		Now:     a.srv.clock.Now(),
		Clock:   a.srv.clock,
	}
	if req != nil {
		x.Dialect, x.Binding = req.Dialect, req.Binding
		x.Skill = a.eng.SkillFor(req.Message)
	}
	if bs.Len() == 0 {
		return x, acted.Report{}
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(op))
	x.Rand = rand.New(rand.NewPCG(a.seed^h.Sum64(), uint64(call)))
	return x, bs.Apply(x)
}
