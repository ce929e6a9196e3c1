package plan_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine/plan"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func msg(taskID, contextID, text string) *wire.Message {
	return &wire.Message{MessageID: "m1", TaskID: taskID, ContextID: contextID, Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(text)}}
}

func task(state wire.TaskState) *wire.Task {
	return &wire.Task{ID: "t1", ContextID: "c1", Status: wire.TaskStatus{State: state}}
}

func TestHonestDecision(t *testing.T) {
	cases := []struct {
		name     string
		m        *wire.Message
		dialect  wire.Dialect
		task     *wire.Task
		kind     timeline.DecisionKind
		taskID   string
		errCode  int
		contextI string
	}{
		{name: "a message naming no task starts one", m: msg("", "c9", "hi"), dialect: wire.V10, kind: timeline.DecideNew, contextI: "c9"},
		{name: "an unknown task is not found", m: msg("nope", "", "hi"), dialect: wire.V10, kind: timeline.DecideReject, errCode: wire.CodeTaskNotFound},
		{name: "v0.1 clients choose new task ids", m: msg("mine", "", "hi"), dialect: wire.V01, kind: timeline.DecideNew, taskID: "mine"},
		{name: "another context is invalid", m: msg("t1", "c2", "hi"), dialect: wire.V10, task: task(wire.StateInputRequired), kind: timeline.DecideReject, errCode: wire.CodeInvalidParams},
		{name: "a terminal task takes no more messages", m: msg("t1", "", "hi"), dialect: wire.V10, task: task(wire.StateCompleted), kind: timeline.DecideReject, errCode: wire.CodeUnsupportedOperation},
		{name: "an input-required task is continued in its context", m: msg("t1", "", "more"), dialect: wire.V10, task: task(wire.StateInputRequired), kind: timeline.DecideContinue, taskID: "t1", contextI: "c1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := plan.HonestDecision(c.m, c.dialect, c.task)
			assert.Equal(t, c.kind, d.Kind, d.Reason)
			assert.Equal(t, c.taskID, d.TaskID)
			assert.Equal(t, c.contextI, d.ContextID)
			assert.NotEmpty(t, d.Reason, "every decision says why")
			if c.errCode == 0 {
				assert.Nil(t, d.Err)
				return
			}
			require.NotNil(t, d.Err)
			assert.Equal(t, c.errCode, d.Err.Code)
		})
	}
}

func states(tl timeline.Timeline) []wire.TaskState {
	var out []wire.TaskState
	for _, s := range tl {
		if s.Kind == timeline.StepState {
			out = append(out, s.State)
		} else {
			out = append(out, "artifact")
		}
	}
	return out
}

func TestHonestPlan(t *testing.T) {
	plain := &cards.Skill{ID: "s1", Name: "One"}
	asks := &cards.Skill{ID: "s2", Name: "Two", NeedsInput: true}
	art := func() *wire.Artifact { return &wire.Artifact{ArtifactID: "a1"} }
	newTask := timeline.Decision{Kind: timeline.DecideNew}
	cont := timeline.Decision{Kind: timeline.DecideContinue, TaskID: "t1"}
	delay := 7 * time.Millisecond

	tl := plan.HonestPlan(newTask, plain, "", nil, delay, art)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, "artifact", wire.StateCompleted}, states(tl))
	assert.Equal(t, delay, tl[1].After, "working comes a step delay after submitted")
	assert.Equal(t, "a1", tl[2].Artifact.ArtifactID)
	assert.True(t, tl[2].LastChunk)

	tl = plan.HonestPlan(newTask, asks, "", nil, delay, art)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired}, states(tl))
	assert.Equal(t, "More input is needed for Two.", tl[2].Message, "the default prompt names the skill")

	tl = plan.HonestPlan(cont, asks, wire.StateInputRequired, nil, delay, art)
	assert.Equal(t, []wire.TaskState{wire.StateWorking, "artifact", wire.StateCompleted}, states(tl), "a continuation works, then completes")

	assert.Empty(t, plan.HonestPlan(cont, plain, wire.StateWorking, nil, delay, art), "a message to a working task changes nothing")

	scripted := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateFailed}}
	tl = plan.HonestPlan(newTask, plain, "", map[string]timeline.Timeline{"s1": scripted}, delay, art)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateFailed}, states(tl), "a skill's scripted timeline replaces the honest one")
	tl[1].State = wire.StateCompleted
	assert.Equal(t, wire.StateFailed, scripted[1].State, "the plan is a copy: playing it cannot change the script")
}

func TestScripts(t *testing.T) {
	s1 := &cards.Skill{ID: "s1"}
	s2 := &cards.Skill{ID: "s2"}
	fail := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateFailed}}
	again := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateWorking}}
	ss := plan.Scripts{
		{Skill: "s1", Text: regexp.MustCompile(`^boom`), Timeline: fail},
		{Skill: "s1", Continuation: true, AnswerNewTask: true, Timeline: again},
	}

	assert.Nil(t, ss.For(s1, msg("", "", "hello"), false), "text must match")
	assert.NotNil(t, ss.For(s1, msg("", "", "boom!"), false))
	assert.Nil(t, ss.For(s2, msg("", "", "boom!"), false), "skill must match")
	assert.Nil(t, ss.For(s2, msg("", "", "boom!"), true), "continuation scripts match continuations of their skill only")

	cont := timeline.Decision{Kind: timeline.DecideContinue, TaskID: "t1", ContextID: "c1"}
	d := ss.Decision(cont, s1, msg("t1", "", "more"))
	assert.Equal(t, timeline.DecideNew, d.Kind, "AnswerNewTask turns a continuation into a new task")
	assert.Equal(t, "c1", d.ContextID, "in the same context")
	assert.Empty(t, d.TaskID, "with an id of its own")
	assert.Equal(t, cont, ss.Decision(cont, s2, msg("t1", "", "more")), "no script for s2: the decision stands")
	reject := timeline.Decision{Kind: timeline.DecideReject}
	assert.Equal(t, reject, ss.Decision(reject, s1, msg("t1", "", "more")), "only continuations are redirected")

	tl, ok := ss.Timeline(timeline.Decision{Kind: timeline.DecideNew}, msg("", "", "boom"), s1, nil)
	require.True(t, ok)
	assert.Equal(t, fail, tl)
	tl, ok = ss.Timeline(d, msg("t1", "", "more"), s1, s1)
	require.True(t, ok, "the new task that answers a continuation plays the continuation script")
	assert.Equal(t, again, tl)
	_, ok = ss.Timeline(timeline.Decision{Kind: timeline.DecideNew}, msg("", "", "hello"), s2, nil)
	assert.False(t, ok)
}

func TestCheckScripts(t *testing.T) {
	card := &cards.Card{Skills: []cards.Skill{{ID: "s1"}}}
	assert.NoError(t, plan.CheckScripts(card, []plan.Script{{Skill: "s1"}, {Continuation: true, AnswerNewTask: true}}))
	assert.ErrorContains(t, plan.CheckScripts(card, []plan.Script{{Skill: "nope"}}), `unknown skill "nope"`)
	assert.ErrorContains(t, plan.CheckScripts(card, []plan.Script{{AnswerNewTask: true}}), "continuations only")
}
