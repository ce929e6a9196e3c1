package roster

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ag struct{ name string }

func TestRosterAddsRemovesAndBounds(t *testing.T) {
	t.Parallel()
	var r Roster[*ag]
	root := &ag{"root"}
	r.Configure([]string{"root"}, []*ag{root})
	assert.Same(t, root, r.Root())

	build := func(name string) func(int) (*ag, error) {
		return func(int) (*ag, error) { return &ag{name}, nil }
	}
	require.NoError(t, r.Add("a", 2, build("a")))
	assert.ErrorIs(t, r.Add("a", 2, build("a")), ErrExists)
	assert.ErrorIs(t, r.Add("root", 2, build("root")), ErrExists)
	require.NoError(t, r.Add("b", 2, build("b")))
	assert.ErrorIs(t, r.Add("c", 2, build("c")), ErrTooMany)
	boom := errors.New("boom")
	assert.ErrorIs(t, r.Add("d", 3, func(int) (*ag, error) { return nil, boom }), boom)
	_, ok := r.Lookup("d")
	assert.False(t, ok, "a failed build adds nothing")

	names := func() []string {
		var out []string
		for _, a := range r.All() {
			out = append(out, a.name)
		}
		return out
	}
	assert.Equal(t, []string{"root", "a", "b"}, names())

	var removed []string
	a, err := r.Remove("a", func(a *ag) { removed = append(removed, a.name) })
	require.NoError(t, err)
	assert.Equal(t, "a", a.name)
	assert.Equal(t, []string{"a"}, removed)
	_, err = r.Remove("a", nil)
	assert.ErrorIs(t, err, ErrNoSuch)
	_, err = r.Remove("root", nil)
	assert.ErrorIs(t, err, ErrStatic)
	assert.Equal(t, []string{"root", "b"}, names())

	// Three builds ran (a, b and the failed d): generated names go on from
	// there.
	assert.Equal(t, "agent-4", r.FreshName())
}

// TestRosterConcurrentAdds: concurrent adds of distinct names all land,
// and of one name exactly one does.
func TestRosterConcurrentAdds(t *testing.T) {
	t.Parallel()
	var r Roster[*ag]
	r.Configure([]string{"root"}, []*ag{{"root"}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 16 {
		wg.Go(func() {
			_ = r.Add(string(rune('a'+i)), 100, func(int) (*ag, error) { return &ag{}, nil })
			if r.Add("same", 100, func(int) (*ag, error) { return &ag{}, nil }) == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Len(t, r.All(), 1+16+1)
	assert.Equal(t, 1, won)
}
