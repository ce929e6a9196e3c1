package behaviors_test

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func scopeExchange() *behaviors.Exchange {
	return &behaviors.Exchange{
		Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Call: 3,
		Skill: &cards.Skill{ID: "ask"},
		Request: &wire.Request{Method: "SendMessage", Message: &wire.Message{
			Parts: []wire.Part{wire.TextPart("please go")}, Metadata: map[string]any{"tenant": "acme"}}},
		Rand: rand.New(rand.NewPCG(1, 2)),
	}
}

func TestScopeMatches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		scope behaviors.Scope
		match bool
	}{
		{"zero scope", behaviors.Scope{}, true},
		{"agent", behaviors.Scope{Agent: "a"}, true},
		{"other agent", behaviors.Scope{Agent: "b"}, false},
		{"skill", behaviors.Scope{Skill: "ask"}, true},
		{"other skill", behaviors.Scope{Skill: "quick"}, false},
		{"op", behaviors.Scope{Ops: []wire.Op{wire.OpStream, wire.OpSend}}, true},
		{"other op", behaviors.Scope{Ops: []wire.Op{wire.OpGetTask}}, false},
		{"method", behaviors.Scope{Methods: []string{"SendMessage"}}, true},
		{"other method", behaviors.Scope{Methods: []string{"message/send"}}, false},
		{"dialect", behaviors.Scope{Dialects: []wire.Dialect{wire.V10}}, true},
		{"other dialect", behaviors.Scope{Dialects: []wire.Dialect{wire.V03}}, false},
		{"binding", behaviors.Scope{Bindings: []wire.Binding{wire.BindingJSONRPC}}, true},
		{"other binding", behaviors.Scope{Bindings: []wire.Binding{wire.BindingREST}}, false},
		{"if-metadata", behaviors.Scope{IfMetadata: "tenant"}, true},
		{"if-metadata absent", behaviors.Scope{IfMetadata: "region"}, false},
		{"unless-metadata", behaviors.Scope{UnlessMetadata: "region"}, true},
		{"unless-metadata present", behaviors.Scope{UnlessMetadata: "tenant"}, false},
		{"text", behaviors.Scope{Text: regexp.MustCompile(`go$`)}, true},
		{"other text", behaviors.Scope{Text: regexp.MustCompile(`^stop`)}, false},
		{"call", behaviors.Scope{CallFrom: 3, CallTo: 3}, true},
		{"before calls", behaviors.Scope{CallFrom: 4}, false},
		{"after calls", behaviors.Scope{CallFrom: 1, CallTo: 2}, false},
		{"open range", behaviors.Scope{CallFrom: 2}, true},
		{"probability 1", behaviors.Scope{Probability: 1}, true},
		{"all keys", behaviors.Scope{Agent: "a", Skill: "ask", UnlessMetadata: "region", CallFrom: 1, CallTo: 5}, true},
		{"all keys but one", behaviors.Scope{Agent: "a", Skill: "ask", UnlessMetadata: "tenant", CallFrom: 1, CallTo: 5}, false},
	} {
		assert.Equal(t, c.match, c.scope.Matches(scopeExchange()), c.name)
	}
}

// Requests without a message: metadata and text keys that require one do
// not match, unless-metadata does.
func TestScopeWithoutMessage(t *testing.T) {
	t.Parallel()
	x := scopeExchange()
	x.Request = &wire.Request{Method: "GetTask", TaskID: "t"}
	assert.False(t, behaviors.Scope{IfMetadata: "tenant"}.Matches(x))
	assert.True(t, behaviors.Scope{UnlessMetadata: "tenant"}.Matches(x))
	assert.False(t, behaviors.Scope{Text: regexp.MustCompile(`.`)}.Matches(x))
	x.Request = nil
	assert.False(t, behaviors.Scope{Methods: []string{"GetTask"}}.Matches(x))
}

// probability draws from the exchange's seeded source: the same source
// gives the same verdicts, and about the given fraction match.
func TestScopeProbabilitySeeded(t *testing.T) {
	t.Parallel()
	sc := behaviors.Scope{Probability: 0.5}
	verdicts := func() []bool {
		var out []bool
		for call := range 200 {
			x := scopeExchange()
			x.Rand = rand.New(rand.NewPCG(42, uint64(call)))
			out = append(out, sc.Matches(x))
		}
		return out
	}
	a, b := verdicts(), verdicts()
	assert.Equal(t, a, b)
	n := 0
	for _, v := range a {
		if v {
			n++
		}
	}
	assert.InDelta(t, 100, n, 30)
	x := scopeExchange()
	x.Rand = nil
	assert.False(t, sc.Matches(x), "no seeded source, no draw")
}

// Scoped applies the behavior only in scope, and composes: behaviors run
// in order, so a later one sees what an earlier one decided.
func TestScopedApplyAndCompose(t *testing.T) {
	t.Parallel()
	mint, err := behaviors.Parse("mint-task-for-unknown-id:keep-id=false")
	require.NoError(t, err)
	cont, err := behaviors.Parse("new-task-id-on-continuation:skill=quick")
	require.NoError(t, err)

	x := scopeExchange()
	x.Request.Message.TaskID = "gone"
	mint.Apply(x)
	cont.Apply(x) // out of scope (skill ask): registers nothing
	hooks := x.Hooks()
	require.Len(t, hooks.Decide, 1)
	require.Empty(t, hooks.Plan)
	d := timeline.Decision{Kind: timeline.DecideReject, Err: wire.ErrTaskNotFound("gone")}
	hooks.Decide[0](&d, nil)
	assert.Equal(t, timeline.DecideNew, d.Kind)
	assert.Empty(t, d.TaskID, "keep-id=false mints a fresh id")

	y := scopeExchange()
	y.Skill = &cards.Skill{ID: "quick"}
	cont.Apply(y)
	assert.Len(t, y.Hooks().Decide, 1)
	assert.Len(t, y.Hooks().Plan, 1)
}

func TestScopedReset(t *testing.T) {
	t.Parallel()
	s, err := behaviors.Parse("status-for-other-task")
	require.NoError(t, err)
	var r behaviors.Resetter = s
	r.Reset() // forwards to the behavior; must not panic on a fresh one
	n, err := behaviors.Parse("never-terminal")
	require.NoError(t, err)
	n.Reset() // a behavior without state: a no-op
}
