package pages

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// TestTokensAreStableAndBounded: one place has one token; tokens number
// in issue order, not by place; a token past the bound is forgotten.
func TestTokensAreStableAndBounded(t *testing.T) {
	t.Parallel()
	var p Tokens
	a, b := Cursor{UnixNano: 5, Seq: 1}, Cursor{UnixNano: 5, Seq: 2}
	ta := p.Issue(a)
	assert.Equal(t, ta, p.Issue(a), "the same place, the same token")
	tb := p.Issue(b)
	assert.NotEqual(t, ta, tb)
	c, ok := p.Lookup(tb)
	assert.True(t, ok)
	assert.Equal(t, b, c)
	for i := range maxPageTokens {
		p.Issue(Cursor{UnixNano: int64(100 + i)})
	}
	_, ok = p.Lookup(ta)
	assert.False(t, ok, "the oldest token is forgotten past the bound")
	assert.Equal(t, -1, a.Compare(b))
	assert.Equal(t, 1, Cursor{UnixNano: 6}.Compare(b))
}

// TestSlicePagesNewestFirst: pages of 2 over 5 items, newest first, each
// page after the last item of the one before, even when an item newer than
// all of them arrives between two fetches.
func TestSlicePagesNewestFirst(t *testing.T) {
	pos := func(c Cursor) Cursor { return c }
	items := []Cursor{{UnixNano: 1, Seq: 1}, {UnixNano: 3, Seq: 2}, {UnixNano: 2, Seq: 3}, {UnixNano: 3, Seq: 4}, {UnixNano: 5, Seq: 5}}
	start, end := Slice(items, pos, nil, 2)
	assert.Equal(t, []Cursor{{5, 5}, {3, 4}}, items[start:end], "the newest first, the newer task breaking the tie")
	last := items[end-1]
	items = append(items, Cursor{UnixNano: 9, Seq: 6})
	start, end = Slice(items, pos, &last, 2)
	assert.Equal(t, []Cursor{{3, 2}, {2, 3}}, items[start:end], "the page after, unmoved by the newer item")
	last = items[end-1]
	start, end = Slice(items, pos, &last, 2)
	assert.Equal(t, []Cursor{{1, 1}}, items[start:end])
	start, end = Slice(items, pos, &Cursor{UnixNano: 0}, 2)
	assert.Equal(t, start, end, "nothing after the oldest")
}

// A task's push configs come in pages of at most PageSize (all when it is
// 0), in the order given; each token continues after the config its page
// ended with, so a config set meanwhile is listed and one deleted ends the
// token; a token of another task, or none this package made, is refused.
func TestPushConfigs(t *testing.T) {
	t.Parallel()
	pcs := []wire.PushConfig{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	ids := func(p []wire.PushConfig) (out []string) {
		for _, pc := range p {
			out = append(out, pc.ID)
		}
		return out
	}
	all, next, e := PushConfigs("t1", pcs, wire.ListTasksQuery{})
	require.Nil(t, e)
	assert.Equal(t, []string{"a", "b", "c"}, ids(all))
	assert.Empty(t, next)

	var got, tokens []string
	q := wire.ListTasksQuery{PageSize: 1}
	for range 5 {
		page, next, e := PushConfigs("t1", pcs, q)
		require.Nil(t, e)
		got = append(got, ids(page)...)
		if next == "" {
			break
		}
		tokens = append(tokens, next)
		q.PageToken = next
	}
	assert.Equal(t, []string{"a", "b", "c"}, got)
	require.Len(t, tokens, 2)
	again, next, _ := PushConfigs("t1", pcs, wire.ListTasksQuery{PageSize: 1})
	assert.Equal(t, []string{"a"}, ids(again))
	assert.Equal(t, tokens[0], next, "the same page gives the same token")

	// A config set after the first page is listed after the others.
	more := append(slices.Clone(pcs), wire.PushConfig{ID: "d"})
	page, _, e := PushConfigs("t1", more, wire.ListTasksQuery{PageToken: tokens[0]})
	require.Nil(t, e)
	assert.Equal(t, []string{"b", "c", "d"}, ids(page))

	for name, tc := range map[string]struct {
		task  string
		pcs   []wire.PushConfig
		token string
	}{
		"another task's":    {"t2", pcs, tokens[0]},
		"its config gone":   {"t1", []wire.PushConfig{{ID: "b"}, {ID: "c"}}, tokens[0]},
		"not base64":        {"t1", pcs, "%%%"},
		"ListTasks' format": {"t1", pcs, "cGFnZS4x"},
	} {
		_, _, e := PushConfigs(tc.task, tc.pcs, wire.ListTasksQuery{PageToken: tc.token})
		require.NotNil(t, e, name)
		assert.Equal(t, wire.CodeInvalidParams, e.Code, name)
		assert.Contains(t, e.Message, "pageToken", name)
	}
}
