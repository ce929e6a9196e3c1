package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestTrimHistory(t *testing.T) {
	t.Parallel()
	ids := func(tk *wire.Task) []string {
		var out []string
		for _, m := range tk.History {
			out = append(out, m.MessageID)
		}
		return out
	}
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		n    *int
		want []string
	}{{nil, []string{"a", "b", "c"}}, {n(-1), []string{"a", "b", "c"}}, {n(0), nil}, {n(2), []string{"b", "c"}}, {n(5), []string{"a", "b", "c"}}} {
		tk := &wire.Task{History: []wire.Message{{MessageID: "a"}, {MessageID: "b"}, {MessageID: "c"}}}
		assert.Same(t, tk, tk.TrimHistory(tc.n))
		assert.Equal(t, tc.want, ids(tk), "historyLength %v", tc.n)
	}
}
