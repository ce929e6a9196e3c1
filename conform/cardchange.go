package conform

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
)

// CardChange changes an agent's card mid-run (a scenario's
// conform.cardChange): when the agent receives the client's AtMessage-th
// message, before it is served, the runner journals a note (judge.CardChangeNote)
// and adds Behaviors to the agent's, which change the card it serves.
type CardChange struct {
	Agent     string
	AtMessage int
	// Behaviors are in the catalogue's text form.
	Behaviors []string
}

// cardChangeOf resolves a scenario's cardChange section (nil for none),
// reporting its problems through at.
func cardChangeOf(cs *scenario.CardChangeSpec, agents []string, at func(path, format string, args ...any)) *CardChange {
	if cs == nil {
		return nil
	}
	cc := &CardChange{Agent: cs.Agent, AtMessage: cs.AtMessage, Behaviors: slices.Clone(cs.Behaviors)}
	if cc.Agent == "" && len(agents) > 0 {
		cc.Agent = agents[0]
	}
	if !slices.Contains(agents, cc.Agent) {
		at("conform.cardChange.agent", "no agent %q in this scenario (agents: %s)", cc.Agent, strings.Join(agents, ", "))
	}
	if cc.AtMessage < 0 {
		at("conform.cardChange.atMessage", "the message number must be 1 or more")
	}
	if cc.AtMessage == 0 {
		cc.AtMessage = 1
	}
	if len(cc.Behaviors) == 0 {
		at("conform.cardChange.behaviors", "give at least one behavior that changes the served card, e.g. card-underclaims:claims=pushNotifications")
	}
	reg := behaviors.Catalogue()
	for i, text := range cc.Behaviors {
		if _, err := reg.Parse(text); err != nil {
			at(fmt.Sprintf("conform.cardChange.behaviors[%d]", i), "%v", err)
		}
	}
	return cc
}

// cardChanger makes a scenario's card change when its message arrives.
type cardChanger struct {
	change *CardChange
	srv    *server.Server

	mu       sync.Mutex
	messages int
	done     bool
}

// isMessage reports whether a request (as the wire recorder saw it) sends
// a message: SendMessage or SendStreamingMessage in any dialect or binding.
func isMessage(rec WireRecord) bool {
	switch rec.RPCMethod {
	case "SendMessage", "SendStreamingMessage", "message/send", "message/stream":
		return true
	}
	return rec.Method == "POST" && (strings.HasSuffix(rec.Path, "/message:send") || strings.HasSuffix(rec.Path, "/message:stream"))
}

// observe counts the agent's messages and makes the change at the one it
// waits for, before that message is served.
func (c *cardChanger) observe(rec WireRecord) {
	if c == nil || rec.Agent != c.change.Agent || !isMessage(rec) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.messages++
	if c.messages < c.change.AtMessage {
		return
	}
	c.done = true
	reg := behaviors.Catalogue()
	bs := c.srv.Behaviors(c.change.Agent)
	for _, text := range c.change.Behaviors {
		if b, err := reg.Parse(text); err == nil {
			bs = append(bs, b)
		}
	}
	c.srv.Note(c.change.Agent, fmt.Sprintf("%s: %s (at the client's message %d)", judge.CardChangeNote, strings.Join(c.change.Behaviors, ", "), c.messages))
	_ = c.srv.SetBehaviors(c.change.Agent, bs)
}
