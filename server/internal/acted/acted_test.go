package acted

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// TestSetAppliesScopedAndNamesActing applies a set of two scoped
// behaviors to a request: the one whose skill matches acts (its plan hook
// drops working and is named on the log, through the amend function), the
// other is reported skipped with the scope key and counted in Stats.
func TestSetAppliesScopedAndNamesActing(t *testing.T) {
	t.Parallel()
	reg := behaviors.Catalogue()
	var bs []behaviors.Behavior
	for _, spec := range []string{"skip-working:skill=intake", "skip-working:skill=billing"} {
		b, err := reg.Parse(spec)
		require.NoError(t, err)
		bs = append(bs, b)
	}
	set := NewSet(reg, bs)
	assert.Equal(t, 2, set.Len())
	assert.Equal(t, []string{"skip-working:skill=intake", "skip-working:skill=billing"}, set.Texts())

	x := &behaviors.Exchange{Agent: "a", Op: wire.OpSend, Request: &wire.Request{Op: wire.OpSend}, Skill: &cards.Skill{ID: "intake"}}
	rep := set.Apply(x)
	assert.Equal(t, []string{"skip-working:skill=intake"}, rep.Acted)
	require.Len(t, rep.Skipped, 1)
	assert.Equal(t, "skip-working:skill=billing", rep.Skipped[0].Behavior)
	assert.Equal(t, "skill", rep.Skipped[0].Key)

	var got []journal.ActedBehavior
	log := Instrument(x, rep.Owners, func(list []journal.ActedBehavior) { got = list }, nil)
	require.NotNil(t, log, "a plan hook is registered")
	tl := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateWorking}, {Kind: timeline.StepState, State: wire.StateCompleted}}
	for _, plan := range x.Hooks().Plan {
		tl = plan(tl)
	}
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateCompleted}, tl.States(), "skip-working dropped working")
	assert.Equal(t, []journal.ActedBehavior{{Behavior: "skip-working:skill=intake", Hook: journal.HookPlan}}, got)
	log.Add("skip-working:skill=intake", journal.HookPlan)
	assert.Len(t, got, 1, "the same behavior and hook is named once")

	stats := set.Stats()
	require.Len(t, stats, 2)
	assert.Equal(t, int64(1), stats[0].Acted)
	assert.Equal(t, int64(1), stats[1].Skipped)
	assert.Equal(t, map[string]int64{"skill": 1}, stats[1].SkippedBy)
}

// TestNilSetAndLog: an agent without behaviors has a nil set, and a
// request no hook touched a nil log; both answer without a check.
func TestNilSetAndLog(t *testing.T) {
	t.Parallel()
	var set *Set
	assert.Zero(t, set.Len())
	assert.Nil(t, set.List())
	assert.Equal(t, []Stat{}, set.Stats())
	assert.Nil(t, Instrument(&behaviors.Exchange{}, Owners{}, nil, nil))
	var log *Log
	log.Add("x", journal.HookReject) // no panic
}
