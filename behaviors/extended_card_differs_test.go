package behaviors_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
)

func skillIDs(t *testing.T, raw any) []string {
	t.Helper()
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	c, err := cards.Parse(b)
	require.NoError(t, err, "%s", b)
	var ids []string
	for _, s := range c.Skills {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestExtendedCardDiffers(t *testing.T) {
	t.Parallel()
	base, c := authServer(t)
	status, out := callAuth(t, c, base+"/", "GetExtendedAgentCard", map[string]any{}, server.TestBearerToken)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, []string{"s1", "s2"}, skillIDs(t, out["result"]))

	status, out = callAuth(t, c, base+"/", "GetExtendedAgentCard", map[string]any{}, "")
	assert.Equal(t, http.StatusUnauthorized, status, "the extended card needs credentials")
	assert.NotNil(t, out["error"], "refused with a JSON-RPC error body")

	base, c = authServer(t, "extended-card-differs:add=premium|audit")
	status, out = callAuth(t, c, base+"/", "GetExtendedAgentCard", map[string]any{}, server.TestBearerToken)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, []string{"s1", "premium", "audit"}, skillIDs(t, out["result"]))
}
