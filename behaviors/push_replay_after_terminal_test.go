package behaviors_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit/reconcile"
)

func TestPushReplayAfterTerminal(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-replay-after-terminal")
	id := p.sendWithPush(false)
	p.settle(id, 5)
	assert.Equal(t, []string{"submitted", "working", "artifact", "completed", "working"}, pushKinds(p.hook, id))
	divs := p.hook.Divergences()
	require.Len(t, divs, 1)
	var d *reconcile.DivergenceError
	require.True(t, errors.As(divs[0], &d))
	assert.Equal(t, reconcile.KindTransitionAfterTerminal, d.Kind)
}
