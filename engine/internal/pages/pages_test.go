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
