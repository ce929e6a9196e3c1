package cards

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/wire"
)

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestRenderValidAgainstSchema(t *testing.T) {
	t.Parallel()
	for _, d := range wire.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(10) {
				c := withInterfaces(Generate(fmt.Sprintf("agent-%d", seed), seed))
				c.Dialect = d
				b, err := Render(c)
				require.NoError(t, err)
				schemacheck.Require(t, d, "AgentCard", b)
			}
			b, err := Render(fullCard(d))
			require.NoError(t, err)
			schemacheck.Require(t, d, "AgentCard", b)

			// Each scheme on its own, so one scheme's shape cannot hide
			// behind another's in the anyOf.
			for name, s := range fullCard(d).SecuritySchemes {
				c := withInterfaces(Generate("one-scheme", 3))
				c.Dialect = d
				c.SecuritySchemes = map[string]SecurityScheme{name: s}
				c.Security = []map[string][]string{{name: nil}}
				b, err := Render(c)
				require.NoError(t, err)
				schemacheck.Require(t, d, "AgentCard", b)
			}
		})
	}
}

// TestSchemaCheckIsNotVacuous shows that the schemas used above reject a
// card of the wrong generation, so passing them means something.
func TestSchemaCheckIsNotVacuous(t *testing.T) {
	t.Parallel()
	v10, err := Render(fullCard(wire.V10))
	require.NoError(t, err)
	v03, err := Render(fullCard(wire.V03))
	require.NoError(t, err)
	assert.Error(t, schemacheck.Validate(wire.V03, "AgentCard", v10))
	assert.Error(t, schemacheck.Validate(wire.V10, "AgentCard", v03))
	assert.Error(t, schemacheck.Validate(wire.V02, "AgentCard", v03), "v0.2.6 has no mutualTLS scheme")
}

func TestRenderV10Shape(t *testing.T) {
	t.Parallel()
	b, err := Render(fullCard(wire.V10))
	require.NoError(t, err)
	m := decodeMap(t, b)

	for _, k := range []string{"url", "protocolVersion", "preferredTransport", "additionalInterfaces", "security", "supportsAuthenticatedExtendedCard"} {
		assert.NotContains(t, m, k)
	}
	assert.Equal(t, []any{
		map[string]any{"url": "http://127.0.0.1:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
		map[string]any{"url": "http://127.0.0.1:8080/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
		map[string]any{"url": "http://127.0.0.1:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
	}, m["supportedInterfaces"])

	caps := m["capabilities"].(map[string]any)
	assert.NotContains(t, caps, "stateTransitionHistory")
	assert.Equal(t, true, caps["streaming"])
	assert.Equal(t, true, caps["pushNotifications"])
	assert.Equal(t, true, caps["extendedAgentCard"])
	exts := caps["extensions"].([]any)
	require.Len(t, exts, 2)
	dur := exts[1].(map[string]any)
	assert.Equal(t, DurationExtensionURI, dur["uri"])
	c := fullCard(wire.V10)
	params := dur["params"].(map[string]any)
	require.Len(t, params, len(c.Skills))
	for _, s := range c.Skills {
		assert.Equal(t, s.EstimatedDuration.String(), params[s.ID])
	}

	schemes := m["securitySchemes"].(map[string]any)
	assert.Equal(t, map[string]any{"apiKeySecurityScheme": map[string]any{"description": "tenant key", "location": "header", "name": "X-API-Key"}}, schemes["key"])
	assert.Equal(t, map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "bearer", "bearerFormat": "JWT"}}, schemes["bearer"])
	assert.Equal(t, map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{"clientCredentials": map[string]any{
		"tokenUrl": "https://auth.full.example/token",
		"scopes":   map[string]any{"tasks:read": "read tasks", "tasks:write": "send messages"},
	}}}}, schemes["oauth"])
	assert.Equal(t, map[string]any{"openIdConnectSecurityScheme": map[string]any{"openIdConnectUrl": "https://auth.full.example/.well-known/openid-configuration"}}, schemes["oidc"])
	assert.Equal(t, map[string]any{"mtlsSecurityScheme": map[string]any{"description": "client certificate"}}, schemes["mtls"])

	assert.Equal(t, []any{
		map[string]any{"schemes": map[string]any{"oauth": map[string]any{"list": []any{"tasks:read", "tasks:write"}}}},
		map[string]any{"schemes": map[string]any{"key": map[string]any{"list": []any{}}, "mtls": map[string]any{"list": []any{}}}},
		map[string]any{"schemes": map[string]any{"bearer": map[string]any{"list": []any{}}}},
		map[string]any{"schemes": map[string]any{"oidc": map[string]any{"list": []any{"openid"}}}},
	}, m["securityRequirements"])

	skill := m["skills"].([]any)[0].(map[string]any)
	assert.Equal(t, c.Skills[0].ID, skill["id"])
	assert.NotEmpty(t, skill["inputModes"])
	assert.NotEmpty(t, skill["outputModes"])
	assert.Equal(t, map[string]any{"organization": c.Provider.Organization, "url": c.Provider.URL}, m["provider"])
}

func TestRenderV03Shape(t *testing.T) {
	t.Parallel()
	b, err := Render(fullCard(wire.V03))
	require.NoError(t, err)
	m := decodeMap(t, b)

	assert.NotContains(t, m, "supportedInterfaces")
	assert.NotContains(t, m, "securityRequirements")
	assert.Equal(t, "0.3.0", m["protocolVersion"])
	assert.Equal(t, "http://127.0.0.1:8080/a2a", m["url"])
	assert.Equal(t, "JSONRPC", m["preferredTransport"])
	assert.Equal(t, []any{
		map[string]any{"url": "http://127.0.0.1:8080/a2a", "transport": "JSONRPC"},
		map[string]any{"url": "http://127.0.0.1:8080/rest", "transport": "HTTP+JSON"},
		map[string]any{"url": "http://127.0.0.1:8080/a2a", "transport": "JSONRPC"},
	}, m["additionalInterfaces"])
	assert.Equal(t, true, m["supportsAuthenticatedExtendedCard"])
	caps := m["capabilities"].(map[string]any)
	assert.Equal(t, true, caps["stateTransitionHistory"])
	assert.NotContains(t, caps, "extendedAgentCard")
	assert.Len(t, caps["extensions"], 2)

	schemes := m["securitySchemes"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "apiKey", "description": "tenant key", "in": "header", "name": "X-API-Key"}, schemes["key"])
	assert.Equal(t, map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}, schemes["bearer"])
	assert.Equal(t, "oauth2", schemes["oauth"].(map[string]any)["type"])
	assert.Equal(t, map[string]any{"type": "mutualTLS", "description": "client certificate"}, schemes["mtls"])
	assert.Equal(t, []any{
		map[string]any{"oauth": []any{"tasks:read", "tasks:write"}},
		map[string]any{"key": []any{}, "mtls": []any{}},
		map[string]any{"bearer": []any{}},
		map[string]any{"oidc": []any{"openid"}},
	}, m["security"])
}

func TestRenderV02DropsWhatV026Lacks(t *testing.T) {
	t.Parallel()
	b, err := Render(fullCard(wire.V02))
	require.NoError(t, err)
	m := decodeMap(t, b)
	assert.Equal(t, "0.2.6", m["protocolVersion"])
	schemes := m["securitySchemes"].(map[string]any)
	assert.NotContains(t, schemes, "mtls", "v0.2.6 has no mutualTLS scheme")
	assert.Len(t, schemes, 4)
	assert.Equal(t, []any{
		map[string]any{"oauth": []any{"tasks:read", "tasks:write"}},
		map[string]any{"bearer": []any{}},
		map[string]any{"oidc": []any{"openid"}},
	}, m["security"], "the alternative that needed mtls is gone, not weakened")
	for _, s := range m["skills"].([]any) {
		assert.NotContains(t, s, "security")
	}
	assert.Len(t, m["capabilities"].(map[string]any)["extensions"], 2, "extensions exist since v0.2.2")
}

func TestRenderV01Shape(t *testing.T) {
	t.Parallel()
	b, err := Render(fullCard(wire.V01))
	require.NoError(t, err)
	m := decodeMap(t, b)
	allowed := []string{"name", "description", "url", "provider", "version", "documentationUrl", "capabilities",
		"authentication", "defaultInputModes", "defaultOutputModes", "skills"}
	for k := range m {
		assert.Contains(t, allowed, k)
	}
	assert.Equal(t, "http://127.0.0.1:8080/a2a", m["url"])
	assert.Equal(t, map[string]any{"streaming": true, "pushNotifications": true, "stateTransitionHistory": true}, m["capabilities"])
	assert.Equal(t, map[string]any{"schemes": []any{"Bearer", "ApiKey", "MutualTLS", "OAuth2", "OpenIdConnect"}}, m["authentication"])
}

func TestRenderHybrid(t *testing.T) {
	t.Parallel()
	c := fullCard(wire.V10)
	b, err := RenderHybrid(c)
	require.NoError(t, err)

	require.NoError(t, schemacheck.Validate(wire.V03, "AgentCard", b), "a v0.3 client can read it")
	err = schemacheck.Validate(wire.V10, "AgentCard", b)
	require.Error(t, err, "the v0.3 fields are additional properties to the strict v1.0 schema")

	m := decodeMap(t, b)
	assert.Equal(t, "0.3.0", m["protocolVersion"])
	assert.Len(t, m["supportedInterfaces"], 3)
	assert.Equal(t, "http://127.0.0.1:8080/a2a", m["url"], "the first v0.3 interface")
	assert.Len(t, m["security"], 4)
	assert.Len(t, m["securityRequirements"], 4)
	assert.Equal(t, true, m["supportsAuthenticatedExtendedCard"])
	caps := m["capabilities"].(map[string]any)
	assert.Equal(t, true, caps["extendedAgentCard"])
	assert.Equal(t, true, caps["stateTransitionHistory"])
	key := m["securitySchemes"].(map[string]any)["key"].(map[string]any)
	assert.Equal(t, "apiKey", key["type"])
	assert.Equal(t, "header", key["in"])
	assert.Equal(t, map[string]any{"description": "tenant key", "location": "header", "name": "X-API-Key"}, key["apiKeySecurityScheme"])

	// Without the v0.3 fields the rest is a valid v1.0 card.
	for _, k := range []string{"protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security", "supportsAuthenticatedExtendedCard"} {
		delete(m, k)
	}
	delete(caps, "stateTransitionHistory")
	for _, s := range m["securitySchemes"].(map[string]any) {
		for _, k := range []string{"type", "description", "in", "name", "scheme", "bearerFormat", "flows", "openIdConnectUrl"} {
			delete(s.(map[string]any), k)
		}
	}
	stripped, err := json.Marshal(m)
	require.NoError(t, err)
	schemacheck.Require(t, wire.V10, "AgentCard", stripped)

	_, err = RenderHybrid(Generate("no-interfaces", 1))
	assert.ErrorContains(t, err, "interfaces")
	_, err = RenderHybrid(nil)
	assert.Error(t, err)
	c = fullCard("")
	b2, err := RenderHybrid(c)
	require.NoError(t, err, "the dialect does not matter to the hybrid")
	assert.Equal(t, string(b), string(b2))
}

func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	for _, d := range wire.Dialects {
		first, err := Render(fullCard(d))
		require.NoError(t, err)
		for range 20 {
			b, err := Render(fullCard(d))
			require.NoError(t, err)
			require.Equal(t, string(first), string(b), "dialect %s", d)
		}
	}
	first, err := RenderHybrid(fullCard(wire.V10))
	require.NoError(t, err)
	for range 20 {
		b, err := RenderHybrid(fullCard(wire.V10))
		require.NoError(t, err)
		require.Equal(t, string(first), string(b))
	}
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	_, err := Render(nil)
	assert.Error(t, err)

	_, err = Render(Generate("bare", 1))
	assert.ErrorContains(t, err, "interfaces: at least one interface")

	c := withInterfaces(Generate("bad", 1))
	c.Dialect = "0.9"
	_, err = Render(c)
	assert.ErrorContains(t, err, "dialect")

	c = withInterfaces(Generate("bad", 1))
	c.Dialect = ""
	_, err = Render(c)
	assert.ErrorContains(t, err, "dialect: required")

	c = withInterfaces(Generate("bad", 1))
	c.Skills[0].Tags = nil
	c.Description = ""
	_, err = Render(c)
	assert.ErrorContains(t, err, "skills[0].tags")
	assert.ErrorContains(t, err, "description: required")
}

func TestRenderDurationExtensionReplacesConfiguredOne(t *testing.T) {
	t.Parallel()
	c := withInterfaces(Generate("dur", 5))
	c.Capabilities.Extensions = []Extension{{URI: DurationExtensionURI, Params: map[string]any{"stale": "1h"}}}
	b, err := Render(c)
	require.NoError(t, err)
	exts := decodeMap(t, b)["capabilities"].(map[string]any)["extensions"].([]any)
	require.Len(t, exts, 1)
	assert.NotContains(t, exts[0].(map[string]any)["params"], "stale")

	for i := range c.Skills {
		c.Skills[i].EstimatedDuration = 0
	}
	b, err = Render(c)
	require.NoError(t, err)
	assert.NotContains(t, decodeMap(t, b)["capabilities"], "extensions", "no durations, no extension")
}
