package subset

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSetIsASet: items are kept once, in the order added; Remove says
// whether the item was there; Keep drops what it is told to, calling its
// function once per item; Clear empties the set.
func TestSetIsASet(t *testing.T) {
	t.Parallel()
	var s Set[int]
	assert.Zero(t, s.Len())
	s.Add(1)
	s.Add(2)
	s.Add(1)
	s.Add(3)
	assert.Equal(t, []int{1, 2, 3}, s.Items())
	assert.True(t, s.Remove(2))
	assert.False(t, s.Remove(2), "removed already")
	assert.Equal(t, []int{1, 3}, s.Items())
	var seen []int
	s.Add(4)
	s.Keep(func(v int) bool { seen = append(seen, v); return v != 3 })
	assert.Equal(t, []int{1, 3, 4}, seen)
	assert.Equal(t, []int{1, 4}, s.Items())
	s.Clear()
	assert.Zero(t, s.Len())
	s.Add(5)
	assert.Equal(t, []int{5}, s.Items())
}
