package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
)

// call makes one v1.0 JSON-RPC call and returns its result.
func call(t *testing.T, url, method string, params any) map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Result map[string]any `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return env.Result
}

func judge(t *testing.T, id string, m *testkit.Mock) Verdict {
	t.Helper()
	c, ok := CheckByID(id)
	require.True(t, ok, id)
	return c.Apply(&Run{Journal: m.Journal()})
}

func TestCheckNoPageTokenLoop(t *testing.T) {
	t.Parallel()
	for _, looping := range []bool{false, true} {
		opts := []testkit.Option{testkit.WithSeed(1), testkit.WithStepDelay(-1)}
		if looping {
			opts = append(opts, testkit.WithBehavior("agent", "list-pagination-loop"))
		}
		m := testkit.Start(t, opts...)
		url := m.AgentURL("agent") + "/"
		for i := range 3 {
			call(t, url, "SendMessage", map[string]any{"message": map[string]any{"messageId": fmt.Sprint("m", i), "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}})
		}
		token := ""
		for range 4 {
			page := call(t, url, "ListTasks", map[string]any{"pageSize": 1, "pageToken": token})
			if token, _ = page["nextPageToken"].(string); token == "" {
				break
			}
		}
		v := judge(t, "no-page-token-loop", m)
		assert.Equal(t, !looping, v.Pass, v.Reason)
		if looping {
			assert.Contains(t, v.Reason, "ListTasks followed a nextPageToken that repeated")
		}
	}
}

func TestCheckRetryReusesMessageIDAndBadCardSignature(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(2), testkit.WithStepDelay(-1),
		testkit.WithBehavior("agent", "http-error:status=503,op=send,call=1", "card-signature:mode=hs256"))
	url := m.AgentURL("agent") + "/"
	msg := func(id string) any {
		return map[string]any{"message": map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "pay"}}}}
	}
	call(t, url, "SendMessage", msg("m1")) // 503
	call(t, url, "SendMessage", msg("m1")) // the retry, same id
	assert.True(t, judge(t, "retry-reuses-message-id", m).Pass)
	assert.True(t, judge(t, "no-use-after-bad-card-signature", m).Pass, "no card was fetched")

	m2 := testkit.Start(t, testkit.WithSeed(2), testkit.WithStepDelay(-1),
		testkit.WithBehavior("agent", "http-error:status=503,op=send,call=1", "card-signature:mode=hs256"))
	url = m2.AgentURL("agent") + "/"
	resp, err := http.Get(m2.CardURL("agent"))
	require.NoError(t, err)
	_ = resp.Body.Close()
	call(t, url, "SendMessage", msg("m1"))
	call(t, url, "SendMessage", msg("m2"))
	v := judge(t, "retry-reuses-message-id", m2)
	assert.False(t, v.Pass)
	assert.Contains(t, v.Reason, "a failed message was resent with a new messageId")
	v = judge(t, "no-use-after-bad-card-signature", m2)
	assert.False(t, v.Pass)
	assert.Contains(t, v.Reason, "used after its card failed signature verification (hs256)")
}

func TestCheckCardRefetchedOnChange(t *testing.T) {
	t.Parallel()
	msg := func(id string) any {
		return map[string]any{"message": map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}}
	}
	fetch := func(m *testkit.Mock) {
		resp, err := http.Get(m.CardURL("agent"))
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	for _, c := range []struct {
		name     string
		refetch  bool
		change   bool
		pass     bool
		reasonIs string
	}{
		{"no change", false, false, true, "the card never changed"},
		{"changed, not refetched", false, true, false, "came without fetching the card again"},
		{"changed, refetched", true, true, true, "the client fetched it again (journal #"},
	} {
		m := testkit.Start(t, testkit.WithSeed(3), testkit.WithStepDelay(-1))
		url := m.AgentURL("agent") + "/"
		fetch(m)
		if c.change {
			m.Server().Note("agent", CardChangeNote+": card-underclaims (at the client's message 1)")
		}
		call(t, url, "SendMessage", msg("m1")) // the message that triggers the change
		if c.refetch {
			fetch(m)
		}
		call(t, url, "SendMessage", msg("m2"))
		v := judge(t, "card-refetched-on-change", m)
		assert.Equal(t, c.pass, v.Pass, "%s: %s", c.name, v.Reason)
		assert.Contains(t, v.Reason, c.reasonIs, c.name)
	}
}

func TestCheckCardSignatureChecked(t *testing.T) {
	t.Parallel()
	get := func(u string) {
		resp, err := http.Get(u)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	send := map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}}
	for _, c := range []struct {
		name              string
		signed, keys, use bool
		pass              bool
		reasonIs          string
	}{
		{"unsigned", false, false, true, true, "no signed card"},
		{"signed, used unverified", true, false, true, false, "without fetching the keys the signature names"},
		{"signed, keys fetched", true, true, true, true, "fetched the signing keys"},
		{"signed, refused", true, false, false, true, "never used the agent after its signed card"},
	} {
		opts := []testkit.Option{testkit.WithSeed(4), testkit.WithStepDelay(-1)}
		if c.signed {
			opts = append(opts, testkit.WithBehavior("agent", "card-signature:mode=tampered"))
		}
		m := testkit.Start(t, opts...)
		get(m.CardURL("agent"))
		if c.keys {
			get(m.AgentURL("agent") + "/.well-known/jwks.json")
		}
		if c.use {
			call(t, m.AgentURL("agent")+"/", "SendMessage", send)
		}
		v := judge(t, "card-signature-checked", m)
		assert.Equal(t, c.pass, v.Pass, "%s: %s", c.name, v.Reason)
		assert.Contains(t, v.Reason, c.reasonIs, c.name)
	}
}
