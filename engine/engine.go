package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine/internal/pages"
	"github.com/a2amock/a2amock/engine/internal/pushqueue"
	"github.com/a2amock/a2amock/engine/internal/seeded"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Limits are the bounds of an agent's task store and push configs.
type Limits struct {
	// TaskRetention bounds the terminal tasks kept: beyond it the oldest
	// are forgotten.
	TaskRetention int
	// MaxRunningTasks bounds the tasks not in a terminal state: past it
	// the oldest running task is dropped.
	MaxRunningTasks int
	// TaskRetentionBytes bounds the content the stored tasks hold.
	TaskRetentionBytes int64
	// MaxPushConfigs bounds the push configs one task holds.
	MaxPushConfigs int
}

// Config is everything an Agent needs from its host; the engine never
// reaches back into the server that hosts it.
type Config struct {
	// Name is the agent's name, as journal notes carry it.
	Name string
	// Card is the agent's declared card (not modified); Extended its
	// extended card, nil when none is configured.
	Card, Extended *cards.Card
	// Timelines script a new task per skill id; Scripts are matched first.
	Timelines map[string]timeline.Timeline
	Scripts   []ScriptedTimeline
	// Seed is the agent's own seed: ids, generated content and behaviors'
	// random sources derive from it.
	Seed uint64
	// Clock is the clock every delay and timestamp goes through.
	Clock timeline.Clock
	// StepDelay is the delay between the honest timeline's steps.
	StepDelay time.Duration
	// Limits bound the store.
	Limits Limits
	// Context ends when the agent is removed or its host closes: players,
	// waits and push queues watch it.
	Context context.Context
	// HostContext ends when the host closes (not when the agent is
	// removed): notifications are still delivered after a removal.
	HostContext context.Context
	// Players counts the goroutines the engine starts; the host waits for
	// it on close.
	Players *sync.WaitGroup
	// Record journals a note; it may be nil.
	Record func(Note)
	// Deliverer delivers push notifications; nil drops them.
	Deliverer Deliverer
	// CheckPushURL validates a webhook URL as a config is set; field names
	// its parameter in the request's dialect. Nil accepts every URL.
	CheckPushURL func(raw, field string) *wire.Error
	// FirstPushBound bounds how long a send waits for the first push
	// delivery (push-before-response).
	FirstPushBound time.Duration
}

// NoteKind says what a Note records.
type NoteKind string

// The notes an Agent journals.
const (
	// NoteDecision is the decision taken for a message.
	NoteDecision NoteKind = "decision"
	// NoteEvent is an event the player emitted (or end-stream, stop).
	NoteEvent NoteKind = "event"
	// NoteDropped is a running task the store dropped to stay in bounds.
	NoteDropped NoteKind = "dropped"
)

// Note is one thing the engine journals; the host turns it into its
// journal entry.
type Note struct {
	Kind      NoteKind
	Op        wire.Op
	Dialect   wire.Dialect
	Binding   wire.Binding
	TaskID    string
	ContextID string
	// RefTaskID is the task id the client's message named.
	RefTaskID string
	State     wire.TaskState
	Detail    string
	ErrorCode int
	NotActed  []core.NotActed
	// Time is when the note's change happened (a state's timestamp), zero
	// when the recorder is to stamp it.
	Time time.Time
}

// Agent is the engine of one hosted fake agent. See the package doc for
// its parts and lock discipline.
type Agent struct {
	cfg Config

	mu  sync.Mutex
	rng *rand.Rand
	// content is a pool of generated sentences (package seeded).
	content seeded.Content
	calls   map[wire.Op]int
	pushSeq int
	store   store
	// pages holds the ListTasks page tokens issued (listtasks.go).
	pages pages.Tokens
	// seenMsg maps the messageId of every message that started or
	// continued a task to that task (idempotency.go).
	seenMsg map[string]string
	// seenAfterSweep is len(seenMsg) after its last sweep (idempotency.go).
	seenAfterSweep int
	// pushHost is what the tasks' push queues share (package pushqueue).
	pushHost pushqueue.Host
}

// New returns the engine of one agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Card == nil || len(cfg.Card.Skills) == 0 {
		return nil, fmt.Errorf("card declares no skills")
	}
	if cfg.Clock == nil {
		cfg.Clock = timeline.RealClock{}
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.HostContext == nil {
		cfg.HostContext = cfg.Context
	}
	if cfg.Players == nil {
		cfg.Players = &sync.WaitGroup{}
	}
	if cfg.Limits.MaxPushConfigs <= 0 {
		cfg.Limits.MaxPushConfigs = 100
	}
	for id := range cfg.Timelines {
		if cfg.Card.Skill(id) == nil {
			return nil, fmt.Errorf("timeline for unknown skill %q", id)
		}
	}
	if err := CheckScripts(cfg.Card, cfg.Scripts); err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg}
	a.pushHost = pushqueue.Host{Agent: cfg.Name, Deliverer: cfg.Deliverer, Players: cfg.Players, Context: cfg.HostContext}
	a.resetLocked()
	a.store.Forgotten = a.forgetMessagesLocked
	return a, nil
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.cfg.Name }

func (a *Agent) resetLocked() {
	a.rng = rand.New(rand.NewPCG(a.cfg.Seed, a.cfg.Seed>>7|1))
	a.content = seeded.Content{Seed: a.cfg.Seed} // its faker is seeded on first use: seeding costs more than the rest of New
	a.seenMsg, a.seenAfterSweep = map[string]string{}, 0
	a.calls = map[wire.Op]int{}
	a.pushSeq = 0
	a.pages = pages.Tokens{}
	a.store.Reset()
}

// Reset forgets every task: players stop, streams end, and the seeded
// sources start over, so a reset run repeats the first one.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.store.Tasks {
		e.stopPlayer()
		// A player whose timer fired as it was canceled must not apply
		// its step to the forgotten task (and journal it after the reset).
		e.gen++
		e.closeSubs()
	}
	a.resetLocked()
}

// NextCall counts a request of op and returns its number since the last
// reset (core.Exchange.Call).
func (a *Agent) NextCall(op wire.Op) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[op]++
	return a.calls[op]
}

func (a *Agent) record(n Note) {
	if a.cfg.Record != nil {
		a.cfg.Record(n)
	}
}

// newIDLocked returns a UUID-shaped id from the agent's seeded source.
func (a *Agent) newIDLocked() string { return seeded.UUID(a.rng) }

// sentenceLocked returns a seeded sentence of generated content.
func (a *Agent) sentenceLocked() string { return a.content.Sentence(a.rng) }

// SkillFor picks the skill a message addresses: metadata "skillId" (or
// "skill") when it names one, otherwise the first skill that needs no input,
// otherwise the first skill.
func (a *Agent) SkillFor(m *wire.Message) *cards.Skill { return skillFor(a.cfg.Card, m) }

func skillFor(card *cards.Card, m *wire.Message) *cards.Skill {
	if m != nil {
		for _, k := range []string{"skillId", "skill"} {
			if v, ok := m.Metadata[k].(string); ok {
				if s := card.Skill(v); s != nil {
					return s
				}
			}
		}
	}
	for i := range card.Skills {
		if !card.Skills[i].NeedsInput {
			return &card.Skills[i]
		}
	}
	return &card.Skills[0]
}

// ReplyMessage is the agent's direct message answer to m.
func (a *Agent) ReplyMessage(m *wire.Message) *wire.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctxID := m.ContextID
	if ctxID == "" {
		ctxID = a.newIDLocked()
	}
	return &wire.Message{MessageID: a.newIDLocked(), ContextID: ctxID, Role: wire.RoleAgent,
		Parts: []wire.Part{wire.TextPart(a.sentenceLocked())}}
}
