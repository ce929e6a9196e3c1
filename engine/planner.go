package engine

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine/plan"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// The planner's stateful half: reading the task a message names from the
// store and drawing ids; the decisions and timelines themselves are the
// pure functions of package plan. The behaviors' Decide and Plan hooks then
// change them.

// ScriptedTimeline is a timeline played for the messages it matches, as a
// scenario file writes it (plan.Script).
type ScriptedTimeline = plan.Script

// CheckScripts reports a script naming a skill the card does not declare,
// or AnswerNewTask on a script that does not match continuations.
func CheckScripts(card *cards.Card, scripts []ScriptedTimeline) error {
	return plan.CheckScripts(card, scripts)
}

// Decide takes the honest decision for a send, lets the behaviors change
// it and journals it. It returns the decision and the task the message
// named as it stood (nil when none).
// A request with no message is rejected (invalid params), as the codecs
// refuse one on the wire: the engine's API takes requests from any caller.
func (a *Agent) Decide(x *core.Exchange, req *wire.Request) (timeline.Decision, *wire.Task) {
	m := req.Message
	if m == nil {
		return timeline.Decision{Kind: timeline.DecideReject, Err: wire.Errorf(wire.CodeInvalidParams, "message: is required"),
			Reason: "no message"}, nil
	}
	var d timeline.Decision
	var existing *wire.Task
	a.mu.Lock()
	if dup, ok := a.duplicateLocked(m); ok {
		d = dup
		if e := a.store.Tasks[dup.TaskID]; e != nil {
			existing = e.task.Clone()
		}
		a.mu.Unlock()
	} else {
		var skill *cards.Skill
		if e, ok := a.store.Named(m.TaskID); ok {
			existing, skill = e.task.Clone(), e.skill
		}
		a.mu.Unlock()
		d = plan.Scripts(a.cfg.Scripts).Decision(plan.HonestDecision(m, req.Dialect, existing), skill, m)
	}
	if hooks := x.Hooks().Decide; len(hooks) > 0 {
		d = plan.Decided(d, existing, hooks)
	}
	a.recordDecision(req, x, d)
	return d, existing
}

func (a *Agent) recordDecision(req *wire.Request, x *core.Exchange, d timeline.Decision) {
	n := Note{Kind: NoteDecision, Op: req.Op, Dialect: req.Dialect, Binding: req.Binding,
		TaskID: d.TaskID, Detail: plan.Detail(d), NotActed: x.NotActed()}
	if req.Message != nil {
		n.RefTaskID = req.Message.TaskID
	}
	if d.Err != nil {
		n.ErrorCode = d.Err.Code
	}
	a.record(n)
}

// plan is the timeline the agent plays for a decision: a matching script,
// else the honest plan, then the behaviors' Plan hooks.
func (a *Agent) plan(x *core.Exchange, d timeline.Decision, m *wire.Message, skill, cont *cards.Skill, prior wire.TaskState, buf timeline.Timeline) timeline.Timeline {
	tl, scripted := plan.Scripts(a.cfg.Scripts).Timeline(d, m, skill, cont)
	if !scripted {
		tl = plan.AppendHonestPlan(buf, d, skill, prior, a.cfg.Timelines, a.cfg.StepDelay, func() *wire.Artifact {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.content.Artifact(a.rng, a.newIDLocked(), skill.ID, skill.Name)
		})
	}
	if hooks := x.Hooks().Plan; len(hooks) > 0 {
		tl = plan.Planned(tl, hooks)
	}
	return tl
}
