package interop

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
)

// TestJournalChecksOnSDKs runs the journal checks for client-side bugs
// against what the real SDKs sent: a2a-go v2 and @a2a-js/sdk both send
// A2A-Version: 1.0 on every v1.0 request, over both bindings, and an
// a2a-go v2 client built from a card keeps using it after the card
// changed (a2a-go has no card refresh: the application must rebuild the
// client), which AssertCardRefetchedOnChange reports.
func TestJournalChecksOnSDKs(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 1002, -1)
	c1, _ := v1Client(t, m.URL, v1Bindings[0])
	c2, _ := v1Client(t, m.URL, v1Bindings[1])
	sendTask(testCtx(t), t, c1, &a2a.SendMessageRequest{Message: userText("x")})
	sendTask(testCtx(t), t, c2, &a2a.SendMessageRequest{Message: userText("y")})
	for _, tr := range jsTransports {
		r := jsProbe(t, m.URL, tr, "send")
		require.Nil(t, r.Error, r.Raw)
	}
	assert.True(t, testkit.AssertSentVersionHeader(t, m.Journal()))

	j := m.Journal()
	changed := j[len(j)-1].Seq
	require.NoError(t, m.SetBehavior("agent", "card-underclaims:claims=streaming"))
	sendTask(testCtx(t), t, c1, &a2a.SendMessageRequest{Message: userText("z")})
	rt := &failRecorder{}
	assert.False(t, testkit.AssertCardRefetchedOnChange(rt, m.Journal(), "agent", changed))
	assert.Contains(t, rt.msg, "card changed but not fetched again")
}
