package engine

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// The planner: the honest decision for a message and the honest timeline
// for a decision, as pure functions of the request, the task it names and
// the agent's scripts; the behaviors' Decide and Plan hooks then change
// them. Only reading the task and drawing ids touch the agent's state.

// HonestDecision is the decision an honest agent takes for message m of a
// request in dialect d, given the task m names (nil when the store has no
// such task; ignored when m names none). It does not see duplicates.
func HonestDecision(m *wire.Message, d wire.Dialect, task *wire.Task) timeline.Decision {
	if m.TaskID == "" {
		return timeline.Decision{Kind: timeline.DecideNew, ContextID: m.ContextID, Reason: "new message"}
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

// Decide takes the honest decision for a send, lets the behaviors change
// it and journals it. It returns the decision and the task the message
// named as it stood (nil when none).
func (a *Agent) Decide(x *core.Exchange, req *wire.Request) (timeline.Decision, *wire.Task) {
	m := req.Message
	var d timeline.Decision
	var existing *wire.Task
	a.mu.Lock()
	if dup, ok := a.duplicateLocked(m); ok {
		d = dup
		if e := a.store.tasks[dup.TaskID]; e != nil {
			existing = e.task.Clone()
		}
		a.mu.Unlock()
	} else {
		var skill *cards.Skill
		if e, ok := a.store.tasks[m.TaskID]; ok && m.TaskID != "" {
			existing, skill = e.task.Clone(), e.skill
		}
		a.mu.Unlock()
		d = HonestDecision(m, req.Dialect, existing)
		a.scriptedDecision(&d, skill, m)
	}
	for _, f := range x.Hooks().Decide {
		f(&d, existing)
	}
	a.recordDecision(req, x, d)
	return d, existing
}

func (a *Agent) recordDecision(req *wire.Request, x *core.Exchange, d timeline.Decision) {
	n := Note{Kind: NoteDecision, Op: req.Op, Dialect: req.Dialect, Binding: req.Binding,
		TaskID: d.TaskID, Detail: string(d.Kind) + ": " + d.Reason, NotActed: x.NotActed()}
	if req.Message != nil {
		n.RefTaskID = req.Message.TaskID
	}
	if d.Err != nil {
		n.ErrorCode = d.Err.Code
	}
	a.record(n)
}

// HonestPlan is the timeline an honest agent plays for a decision on a task
// of skill that was in state prior: scripted per skill (a new task of a
// skill in timelines plays it), otherwise submitted, working, then either
// input-required (a skill that needs input) or an artifact and completed.
// A continuation of a working task plays nothing. art is the artifact the
// timeline delivers.
func HonestPlan(d timeline.Decision, skill *cards.Skill, prior wire.TaskState, timelines map[string]timeline.Timeline, delay time.Duration, art func() *wire.Artifact) timeline.Timeline {
	if d.Kind == timeline.DecideNew {
		if tl, ok := timelines[skill.ID]; ok {
			return tl.Clone()
		}
	}
	tl := make(timeline.Timeline, 0, 4)
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

// plan is the timeline the agent plays for a decision: a matching script,
// else the honest plan, then the behaviors' Plan hooks.
func (a *Agent) plan(x *core.Exchange, d timeline.Decision, m *wire.Message, skill, cont *cards.Skill, prior wire.TaskState) timeline.Timeline {
	tl, scripted := a.scriptedPlan(d, m, skill, cont)
	if !scripted {
		tl = HonestPlan(d, skill, prior, a.cfg.Timelines, a.cfg.StepDelay, func() *wire.Artifact {
			a.mu.Lock()
			defer a.mu.Unlock()
			return &wire.Artifact{
				ArtifactID: a.newIDLocked(),
				Name:       skill.ID + "-result",
				Parts:      []wire.Part{wire.TextPart(skill.Name + ": " + a.sentenceLocked())},
			}
		})
	}
	for _, f := range x.Hooks().Plan {
		tl = f(tl)
	}
	return tl
}
