// Package plan is the agent's planner: the decision an agent takes for a
// message and the timeline it plays for that decision, as pure functions of
// the message, the task it names, the agent's scripts and its scripted
// timelines. Nothing here holds state or locks; the engine reads the task
// from its store, calls these, then lets the behaviors' Decide and Plan
// hooks change the result.
package plan

import (
	"fmt"
	"regexp"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// HonestDecision is the decision an honest agent takes for message m of a
// request in dialect d, given the task m names (nil when the store has no
// such task; ignored when m names none). It does not see duplicates.
func HonestDecision(m *wire.Message, d wire.Dialect, task *wire.Task) timeline.Decision {
	if m.TaskID == "" {
		return timeline.Decision{Kind: timeline.DecideNew, ContextID: m.ContextID, Reason: newMessage}
	}
	switch {
	case task == nil && wire.Describe(d).ClientTaskIDs:
		// v0.1 let the client choose the task id.
		return timeline.Decision{Kind: timeline.DecideNew, TaskID: m.TaskID, ContextID: m.ContextID, Reason: "v0.1 send with a new client-chosen task id"}
	case task == nil:
		return timeline.Decision{Kind: timeline.DecideReject, Err: wire.ErrTaskNotFound(m.TaskID), Reason: "message names an unknown task"}
	case m.ContextID != "" && m.ContextID != task.ContextID:
		return timeline.Decision{Kind: timeline.DecideReject, Reason: "contextId differs from the task's",
			Err: wire.ErrInvalidParams("message.contextId", fmt.Sprintf("%q does not match the context %q of task %s", m.ContextID, task.ContextID, m.TaskID))}
	case task.Status.State.Terminal():
		return timeline.Decision{Kind: timeline.DecideReject, Reason: "message to a terminal task",
			Err: wire.Errorf(wire.CodeUnsupportedOperation, "task %s is %s: a terminal task accepts no more messages; start a new task in context %s", m.TaskID, task.Status.State, task.ContextID).With("taskId", m.TaskID)}
	}
	return timeline.Decision{Kind: timeline.DecideContinue, TaskID: m.TaskID, ContextID: task.ContextID, Reason: "continuation of " + string(task.Status.State) + " task"}
}

// newMessage is the reason of the decision nearly every send gets.
const newMessage = "new message"

// Detail is decision d as the journal's decision entry words it
// ("new: new message"): for the honest decision on a new message, a
// constant rather than a string built on every send.
func Detail(d timeline.Decision) string {
	if d.Kind == timeline.DecideNew && d.Reason == newMessage {
		return string(timeline.DecideNew) + ": " + newMessage
	}
	return string(d.Kind) + ": " + d.Reason
}

// Planned is tl after the behaviors' Plan hooks, in order. They are given
// a copy of tl, which may be the caller's array on its stack (see
// AppendHonestPlan): a hook may keep or change what it is given.
func Planned(tl timeline.Timeline, hooks []func(timeline.Timeline) timeline.Timeline) timeline.Timeline {
	out := tl.Clone()
	for _, f := range hooks {
		out = f(out)
	}
	return out
}

// Decided is d after the behaviors' Decide hooks, in order, given the
// task the message named. Only a decision with hooks goes through here:
// the pointer the hooks take moves it to the heap.
func Decided(d timeline.Decision, existing *wire.Task, hooks []func(*timeline.Decision, *wire.Task)) timeline.Decision {
	for _, f := range hooks {
		f(&d, existing)
	}
	return d
}

// HonestPlan is the timeline an honest agent plays for a decision on a task
// of skill that was in state prior: scripted per skill (a new task of a
// skill in timelines plays it), otherwise submitted, working, then either
// input-required (a skill that needs input) or an artifact and completed.
// A continuation of a working task plays nothing. art is the artifact the
// timeline delivers.
func HonestPlan(d timeline.Decision, skill *cards.Skill, prior wire.TaskState, timelines map[string]timeline.Timeline, delay time.Duration, art func() *wire.Artifact) timeline.Timeline {
	return AppendHonestPlan(make(timeline.Timeline, 0, 4), d, skill, prior, timelines, delay, art)
}

// AppendHonestPlan is HonestPlan written over dst (a skill's scripted
// timeline aside, which is a copy of its own): with room for four steps,
// which the honest plans take at most, dst may be the caller's array on
// its stack, and planning a send allocates no timeline.
func AppendHonestPlan(dst timeline.Timeline, d timeline.Decision, skill *cards.Skill, prior wire.TaskState, timelines map[string]timeline.Timeline, delay time.Duration, art func() *wire.Artifact) timeline.Timeline {
	if d.Kind == timeline.DecideNew {
		if tl, ok := timelines[skill.ID]; ok {
			return tl.Clone()
		}
	}
	tl := dst[:0]
	if d.Kind == timeline.DecideNew {
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateSubmitted})
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateWorking, After: delay})
		if skill.NeedsInput {
			prompt := skill.InputPrompt
			if prompt == "" {
				prompt = "More input is needed for " + skill.Name + "."
			}
			return append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateInputRequired, Message: prompt, After: delay})
		}
	} else if prior != wire.StateWorking {
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateWorking})
	} else {
		return nil
	}
	tl = append(tl, timeline.Step{Kind: timeline.StepArtifact, Artifact: art(), LastChunk: true, After: delay})
	return append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateCompleted})
}

// Script is a timeline played for the messages it matches, as a
// scenario file writes it.
type Script struct {
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
func CheckScripts(card *cards.Card, scripts []Script) error {
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

// Scripts are an agent's scripted timelines, first match wins.
type Scripts []Script

// For returns the first script matching a message that starts
// (continuation false) or continues a task of skill, or nil.
func (ss Scripts) For(skill *cards.Skill, m *wire.Message, continuation bool) *Script {
	for i := range ss {
		sc := &ss[i]
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

// Decision lets a continuation script answer a continuation of a task of
// skill with a new task: it returns d changed so, or d as it was.
func (ss Scripts) Decision(d timeline.Decision, skill *cards.Skill, m *wire.Message) timeline.Decision {
	if d.Kind != timeline.DecideContinue {
		return d
	}
	if sc := ss.For(skill, m, true); sc != nil && sc.AnswerNewTask {
		return timeline.Decision{Kind: timeline.DecideNew, ContextID: d.ContextID,
			Reason: "scripted: continuation of " + d.TaskID + " answered with a new task"}
	}
	return d
}

// Timeline returns the scripted timeline for a decision, if one matches.
// cont is the skill of the live task the message names, if any: a new task
// that answers such a continuation plays the continuation script that
// decided so.
func (ss Scripts) Timeline(d timeline.Decision, m *wire.Message, skill, cont *cards.Skill) (timeline.Timeline, bool) {
	var sc *Script
	switch {
	case d.Kind == timeline.DecideContinue:
		sc = ss.For(cont, m, true)
	case d.Kind == timeline.DecideNew && cont != nil:
		if sc = ss.For(cont, m, true); sc == nil || !sc.AnswerNewTask {
			sc = ss.For(skill, m, false)
		}
	case d.Kind == timeline.DecideNew:
		sc = ss.For(skill, m, false)
	}
	if sc == nil {
		return nil, false
	}
	return sc.Timeline.Clone(), true
}
