package pages

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
