package reconcile

import (
	"strings"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// HistoryPolicy says what a client assumes about state-transition history
// when the card cannot say.
type HistoryPolicy int

const (
	// AssumeNoHistory treats a v1.0 card as promising no transition
	// history. It is the default because v1.0 removed the field as never
	// implemented (a2a#1396): without a promise the client must not raise a
	// divergence from a missing transition, and falls back to polling with
	// a hard deadline, which still catches a task that never ends.
	AssumeNoHistory HistoryPolicy = iota
	// AssumeHistory treats a v1.0 card as if it declared
	// stateTransitionHistory: for agents known to report every transition,
	// so that skipped states are reconciled strictly.
	AssumeHistory
)

// Policy holds the client-side choices that the card cannot make.
type Policy struct {
	// HistoryForV10 decides StateTransitionHistory for v1.0 cards (and for
	// cards of no stated dialect, which are read as v1.0).
	HistoryForV10 HistoryPolicy
	// PushOnly says the client's only update channel is push notifications:
	// states are reconciled on each notification's status and the sequence
	// is treated as lossy, so missing intermediate states are no divergence.
	PushOnly bool
}

// Declared is the dialect-neutral view of what a card promises about the
// lifecycle, the input of phase 1.
type Declared struct {
	Name    string
	Dialect wire.Dialect
	// Streaming and PushNotifications are the card's capabilities.
	Streaming         bool
	PushNotifications bool
	// StateTransitionHistory is the card's field for v0.x cards, and the
	// policy's assumption for v1.0 cards.
	StateTransitionHistory bool
	// HistoryFromPolicy is set when StateTransitionHistory came from Policy
	// rather than from the card, so messages can say so.
	HistoryFromPolicy bool
	// PushOnly copies Policy.PushOnly.
	PushOnly bool
	Skills   []DeclaredSkill
}

// DeclaredSkill is what the card says about one skill.
type DeclaredSkill struct {
	ID   string
	Name string
	// InputModes are the skill's media types, or the card's defaults when
	// the skill names none.
	InputModes []string
	// NeedsInput is a hint that the skill asks for more input
	// (input-required) before it finishes.
	NeedsInput bool
	// EstimatedDuration is the skill's declared duration, zero when none.
	EstimatedDuration time.Duration
}

// Accepts reports whether the skill declares mediaType as an input mode; a
// skill that declares no modes accepts anything.
func (s DeclaredSkill) Accepts(mediaType string) bool {
	if len(s.InputModes) == 0 {
		return true
	}
	for _, m := range s.InputModes {
		if strings.EqualFold(m, mediaType) || m == "*/*" {
			return true
		}
	}
	return false
}

// Skill returns the declared skill with the given id.
func (d Declared) Skill(id string) (DeclaredSkill, bool) {
	for _, s := range d.Skills {
		if s.ID == id {
			return s, true
		}
	}
	return DeclaredSkill{}, false
}

// HistoryDeclaration says in words where StateTransitionHistory comes from,
// for the Declared side of a DivergenceError.
func (d Declared) HistoryDeclaration() string {
	src := "card"
	if d.HistoryFromPolicy {
		src = "policy for v1.0 card"
	}
	if d.StateTransitionHistory {
		return "stateTransitionHistory=true (" + src + ")"
	}
	return "stateTransitionHistory=false (" + src + ")"
}

// Declare normalises card into the declared view under policy. A nil card
// declares nothing.
func Declare(card *cards.Card, policy Policy) Declared {
	d := Declared{PushOnly: policy.PushOnly}
	if card == nil {
		return d
	}
	d.Name = card.Name
	d.Dialect = card.Dialect
	d.Streaming = card.Capabilities.Streaming
	d.PushNotifications = card.Capabilities.PushNotifications
	if wire.Describe(card.Dialect).CardStateTransitionHistory {
		d.StateTransitionHistory = card.Capabilities.StateTransitionHistory
	} else {
		// A v1.0 card cannot carry the field; a hybrid card that does is
		// still read by the policy, so the result does not depend on
		// which producer wrote the card.
		d.StateTransitionHistory = policy.HistoryForV10 == AssumeHistory
		d.HistoryFromPolicy = true
	}
	durations := extensionDurations(card)
	for _, s := range card.Skills {
		ds := DeclaredSkill{
			ID:                s.ID,
			Name:              s.Name,
			InputModes:        append([]string(nil), s.InputModes...),
			NeedsInput:        s.NeedsInput || s.InputPrompt != "" || mentionsFollowUp(s),
			EstimatedDuration: s.EstimatedDuration,
		}
		if len(ds.InputModes) == 0 {
			ds.InputModes = append([]string(nil), card.DefaultInputModes...)
		}
		if ds.EstimatedDuration <= 0 {
			ds.EstimatedDuration = durations[s.ID]
		}
		d.Skills = append(d.Skills, ds)
	}
	return d
}

// extensionDurations reads the a2amock duration extension, for cards parsed
// by a reader that did not fold it into the skills.
func extensionDurations(card *cards.Card) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, e := range card.Capabilities.Extensions {
		if e.URI != cards.DurationExtensionURI {
			continue
		}
		for id, v := range e.Params {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if dur, err := time.ParseDuration(s); err == nil && dur > 0 {
				out[id] = dur
			}
		}
	}
	return out
}

// followUpHints are phrases and tags by which skills announce that they ask
// for more input; the card has no field for it, so this can only be a hint,
// which is all phase 1 needs.
var followUpHints = []string{
	"input-required", "multi-turn", "multi turn", "interactive", "follow-up question",
	"asks for", "will ask", "ask you", "clarif", "requires additional input", "needs more input",
}

func mentionsFollowUp(s cards.Skill) bool {
	text := strings.ToLower(s.Description + " " + strings.Join(s.Tags, " "))
	for _, h := range followUpHints {
		if strings.Contains(text, h) {
			return true
		}
	}
	return false
}
