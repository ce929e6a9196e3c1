package engine

import (
	"fmt"
	"regexp"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// ScriptedTimeline is a timeline played for the messages it matches, as a
// scenario file writes it.
type ScriptedTimeline struct {
	// Skill restricts the script to one skill id ("" matches every skill).
	// For a continuation it is the skill of the continued task.
	Skill string
	// Text, when set, must match the message text.
	Text *regexp.Regexp
	// Continuation matches follow-up messages that name a known,
	// non-terminal task instead of messages that start a task.
	Continuation bool
	// AnswerNewTask answers a matched continuation with a new task (a fresh
	// id, the same context) instead of continuing the named one, as the
	// agent of the field note did; the new task plays Timeline.
	AnswerNewTask bool
	// Timeline is what the agent plays; for a continuation it replaces the
	// honest continuation of the task.
	Timeline timeline.Timeline
}

// CheckScripts reports a script naming a skill the card does not declare,
// or AnswerNewTask on a script that does not match continuations.
func CheckScripts(card *cards.Card, scripts []ScriptedTimeline) error {
	for i, sc := range scripts {
		if sc.Skill != "" && card.Skill(sc.Skill) == nil {
			return fmt.Errorf("scripts[%d]: unknown skill %q", i, sc.Skill)
		}
		if sc.AnswerNewTask && !sc.Continuation {
			return fmt.Errorf("scripts[%d]: AnswerNewTask applies to continuations only", i)
		}
	}
	return nil
}

// scriptFor returns the first scripted timeline matching a message that
// starts (continuation false) or continues a task of skill, or nil.
func (a *Agent) scriptFor(skill *cards.Skill, m *wire.Message, continuation bool) *ScriptedTimeline {
	for i := range a.cfg.Scripts {
		sc := &a.cfg.Scripts[i]
		if sc.Continuation != continuation {
			continue
		}
		if sc.Skill != "" && (skill == nil || skill.ID != sc.Skill) {
			continue
		}
		if sc.Text != nil && (m == nil || !sc.Text.MatchString(m.Text())) {
			continue
		}
		return sc
	}
	return nil
}

// scriptedDecision lets a continuation script answer a continuation of a
// task of skill with a new task.
func (a *Agent) scriptedDecision(d *timeline.Decision, skill *cards.Skill, m *wire.Message) {
	if d.Kind != timeline.DecideContinue {
		return
	}
	if sc := a.scriptFor(skill, m, true); sc != nil && sc.AnswerNewTask {
		*d = timeline.Decision{Kind: timeline.DecideNew, ContextID: d.ContextID,
			Reason: "scripted: continuation of " + d.TaskID + " answered with a new task"}
	}
}

// scriptedPlan returns the scripted timeline for a decision, if one matches.
// cont is the skill of the live task the message names, if any: a new task
// that answers such a continuation plays the continuation script that
// decided so.
func (a *Agent) scriptedPlan(d timeline.Decision, m *wire.Message, skill, cont *cards.Skill) (timeline.Timeline, bool) {
	var sc *ScriptedTimeline
	switch {
	case d.Kind == timeline.DecideContinue:
		sc = a.scriptFor(cont, m, true)
	case d.Kind == timeline.DecideNew && cont != nil:
		if sc = a.scriptFor(cont, m, true); sc == nil || !sc.AnswerNewTask {
			sc = a.scriptFor(skill, m, false)
		}
	case d.Kind == timeline.DecideNew:
		sc = a.scriptFor(skill, m, false)
	}
	if sc == nil {
		return nil, false
	}
	return sc.Timeline.Clone(), true
}
