package behaviors_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestVersionSkew(t *testing.T) {
	t.Parallel()
	t.Run("card 1.0, serves 0.3", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{dialect: wire.V03}, parse(t, "version-skew:serve=0.3"))
		assert.Equal(t, wire.V10, r.card().Dialect)
		rep := r.rpc("SendMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
		require.NotNil(t, rep.Error)
		assert.Equal(t, wire.CodeMethodNotFound, rep.Error.Code)
		assert.Equal(t, "Method not found: SendMessage", rep.Error.Message)
		resp, err := r.client.Post(r.base+"/rest/message:send", "application/json",
			strings.NewReader(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		// The v0.3 names work.
		assert.NotEmpty(t, r.send(wire.V03, "hi", "s1", false))
	})
	t.Run("card 0.3, serves 1.0", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "version-skew:serve=1.0"))
		assert.Equal(t, wire.V03, r.card().Dialect)
		assert.Equal(t, wire.CodeMethodNotFound, r.errorCode("message/send", map[string]any{"message": message(wire.V03, "hi", "s1", "")}))
		assert.NotEmpty(t, r.send(wire.V10, "hi", "s1", false))
	})
	t.Run("out of scope", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "version-skew:serve=0.3,call=2"))
		assert.NotEmpty(t, r.send(wire.V10, "hi", "s1", false), "call 1 is honest")
		assert.Equal(t, wire.CodeMethodNotFound, r.errorCode("SendMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")}))
		_, err := behaviorsParse("version-skew:serve=2.0")
		require.Error(t, err)
	})
}
