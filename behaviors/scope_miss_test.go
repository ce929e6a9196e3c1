package behaviors_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

func TestScopeMissNamesTheKey(t *testing.T) {
	intake := &cards.Skill{ID: "intake"}
	msg := &wire.Message{Parts: []wire.Part{wire.TextPart("hello there")}, Metadata: map[string]any{"tenant": "x"}}
	x := func() *behaviors.Exchange {
		return &behaviors.Exchange{Agent: "a", Op: wire.OpSend, Dialect: wire.V10, Binding: wire.BindingJSONRPC, Skill: intake, Call: 3,
			Request: &wire.Request{Method: "SendMessage", Message: msg}, Rand: rand.New(rand.NewPCG(1, 2))}
	}
	cases := []struct{ spec, key, detail string }{
		{"skip-working:agent=b", "agent", `request for agent "a"; scope wants "b"`},
		{"skip-working:skill=report", "skill", `message went to skill "intake"; scope wants "report"`},
		{"skip-working:op=get-task|cancel-task", "op", "op send; scope wants get-task|cancel-task"},
		{"skip-working:method=message/send", "method", "method SendMessage; scope wants message/send"},
		{"skip-working:dialect=0.3", "dialect", `dialect "1.0"; scope wants 0.3`},
		{"skip-working:binding=HTTP+JSON", "binding", `binding "JSONRPC"; scope wants HTTP+JSON`},
		{"skip-working:if-metadata=trace", "if-metadata", `message metadata has no "trace" (keys: tenant)`},
		{"skip-working:unless-metadata=tenant", "unless-metadata", `message metadata has "tenant"`},
		{"skip-working:text=^bye", "text", `message text "hello there" does not match ^bye`},
		{"skip-working:call=1", "call", "call 3 of send; scope wants call 1"},
		{"skip-working:calls=4-", "call", "call 3 of send; scope wants call 4-"},
		{"skip-working:skill=intake,calls=1-3", "", ""},
	}
	for _, c := range cases {
		b, err := behaviors.Parse(c.spec)
		require.NoError(t, err, c.spec)
		key, detail := b.Scope.Miss(x())
		assert.Equal(t, c.key, key, c.spec)
		assert.Equal(t, c.detail, detail, c.spec)
		assert.Equal(t, c.key == "", b.Scope.Matches(x()), c.spec)
	}
	// Miss and Matches draw the same numbers for probability.
	b, err := behaviors.Parse("skip-working:probability=0.5")
	require.NoError(t, err)
	for seed := range uint64(50) {
		x1, x2 := x(), x()
		x1.Rand, x2.Rand = rand.New(rand.NewPCG(seed, 9)), rand.New(rand.NewPCG(seed, 9))
		key, detail := b.Scope.Miss(x1)
		assert.Equal(t, key == "", b.Scope.Matches(x2))
		if key != "" {
			assert.Equal(t, "probability", key)
			assert.Contains(t, detail, "not below 0.5")
		}
	}
}

func TestScopeOpMustBeKnown(t *testing.T) {
	_, err := behaviors.Parse("skip-working:op=get")
	require.ErrorContains(t, err, `"get" is not an op`)
	require.ErrorContains(t, err, "get-task")
}
