package cards

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// expectedAfterRoundTrip is fullCard(d) without what dialect d's card cannot
// carry. NeedsInput and InputPrompt are mock behaviour, never on the wire.
func expectedAfterRoundTrip(d wire.Dialect) *Card {
	c := fullCard(d)
	for i := range c.Skills {
		c.Skills[i].NeedsInput = false
		c.Skills[i].InputPrompt = ""
	}
	switch d {
	case wire.V10:
		c.Capabilities.StateTransitionHistory = false
	case wire.V03, wire.V02:
		for i := range c.Interfaces {
			c.Interfaces[i].Tenant = ""
			c.Interfaces[i].Version = d
		}
		if d == wire.V02 {
			delete(c.SecuritySchemes, "mtls")
			c.Security = append(c.Security[:1], c.Security[2:]...)
		}
	case wire.V01:
		c.IconURL = ""
		c.Capabilities.Extensions = nil
		c.Capabilities.ExtendedAgentCard = false
		for i := range c.Skills {
			c.Skills[i].EstimatedDuration = 0
		}
		c.Interfaces = []Interface{{URL: c.Interfaces[0].URL, Binding: wire.BindingJSONRPC, Version: wire.V01}}
		// v0.1 lists scheme names only.
		c.SecuritySchemes = map[string]SecurityScheme{
			"bearer":        {Type: SchemeHTTP, Scheme: "bearer"},
			"apikey":        {Type: SchemeAPIKey},
			"mutualtls":     {Type: SchemeMutualTLS},
			"oauth2":        {Type: SchemeOAuth2},
			"openidconnect": {Type: SchemeOpenIDConnect},
		}
		c.Security = []map[string][]string{{"bearer": nil}, {"apikey": nil}, {"mutualtls": nil}, {"oauth2": nil}, {"openidconnect": nil}}
	}
	return c
}

func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	for _, d := range wire.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			b, err := Render(fullCard(d))
			require.NoError(t, err)
			got, err := Parse(b)
			require.NoError(t, err)
			assert.Equal(t, expectedAfterRoundTrip(d), got)

			// A plain generated card survives too, durations included.
			c := withInterfaces(Generate("plain", 11))
			c.Dialect = d
			b, err = Render(c)
			require.NoError(t, err)
			got, err = Parse(b)
			require.NoError(t, err)
			assert.Equal(t, d, got.Dialect)
			require.Len(t, got.Skills, len(c.Skills))
			for i, s := range c.Skills {
				if d == wire.V01 {
					assert.Zero(t, got.Skills[i].EstimatedDuration)
				} else {
					assert.Equal(t, s.EstimatedDuration, got.Skills[i].EstimatedDuration)
				}
			}
			assert.Empty(t, got.Capabilities.Extensions, "the duration extension is folded into the skills")

			// Rendering the parsed card again gives the same bytes.
			again, err := Render(got)
			require.NoError(t, err)
			assert.JSONEq(t, string(b), string(again))
		})
	}
}

func TestParseHybrid(t *testing.T) {
	t.Parallel()
	b, err := RenderHybrid(fullCard(wire.V10))
	require.NoError(t, err)
	got, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, expectedAfterRoundTrip(wire.V10), got)
}

func TestParseDetectsDialect(t *testing.T) {
	t.Parallel()
	const skills = `"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]`
	const common = `"name":"n","description":"d","version":"1","capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` + skills
	cases := []struct {
		name string
		doc  string
		want wire.Dialect
	}{
		{"v1.0", `{` + common + `,"supportedInterfaces":[{"url":"http://h/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, wire.V10},
		{"v0.3", `{` + common + `,"url":"http://h/a","protocolVersion":"0.3.0"}`, wire.V03},
		{"v0.3 short", `{` + common + `,"url":"http://h/a","protocolVersion":"0.3"}`, wire.V03},
		{"v0.2.5", `{` + common + `,"url":"http://h/a","protocolVersion":"0.2.5"}`, wire.V02},
		{"v0.2 without protocolVersion", `{` + common + `,"url":"http://h/a","securitySchemes":{"k":{"type":"apiKey","in":"header","name":"K"}}}`, wire.V02},
		{"v0.2 extensions", `{"name":"n","description":"d","version":"1","url":"http://h/a","capabilities":{"extensions":[]},"defaultInputModes":[],"defaultOutputModes":[],` + skills + `}`, wire.V02},
		{"v0.1 authentication", `{` + common + `,"url":"http://h/a","authentication":{"schemes":["Bearer"]}}`, wire.V01},
		{"v0.1 plain", `{"name":"n","url":"http://h/a","version":"1","capabilities":{},"skills":[{"id":"s","name":"S"}]}`, wire.V01},
	}
	for _, tc := range cases {
		got, err := Parse([]byte(tc.doc))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got.Dialect, tc.name)
	}
}

func TestParseHandWrittenV03(t *testing.T) {
	t.Parallel()
	got, err := Parse([]byte(`{
		"protocolVersion": "0.3.0", "name": "Recipe Agent", "description": "cooks", "version": "1.0.0",
		"url": "https://recipes.example/a2a",
		"additionalInterfaces": [{"url": "https://recipes.example/rest", "transport": "HTTP+JSON"}],
		"capabilities": {"streaming": true, "stateTransitionHistory": true},
		"securitySchemes": {"auth": {"type": "oauth2", "flows": {"authorizationCode": {
			"authorizationUrl": "https://auth.example/authorize", "tokenUrl": "https://auth.example/token", "scopes": {}}}}},
		"security": [{"auth": []}],
		"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
		"skills": [{"id": "bake", "name": "Bake", "description": "bakes", "tags": ["bread"]}]
	}`))
	require.NoError(t, err)
	assert.Equal(t, []Interface{
		{URL: "https://recipes.example/a2a", Binding: wire.BindingJSONRPC, Version: wire.V03},
		{URL: "https://recipes.example/rest", Binding: wire.BindingREST, Version: wire.V03},
	}, got.Interfaces, "preferredTransport defaults to JSONRPC")
	assert.True(t, got.Capabilities.StateTransitionHistory)
	assert.Equal(t, SecurityScheme{Type: SchemeOAuth2, TokenURL: "https://auth.example/token"}, got.SecuritySchemes["auth"])
	assert.Equal(t, []map[string][]string{{"auth": nil}}, got.Security)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const v10Skill = `{"id":"s","name":"S","description":"d","tags":["t"]}`
	const v10Iface = `{"url":"http://h/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}`
	v10 := func(extra string) string {
		return `{"name":"n","description":"d","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],` + extra + `}`
	}
	cases := []struct {
		name string
		doc  string
		want []string
	}{
		{"empty", ``, []string{"parse card"}},
		{"truncated", `{"name": "n",`, []string{"parse card"}},
		{"syntax", `{"name" "n"}`, []string{"malformed JSON"}},
		{"array", `[]`, []string{"parse card"}},
		{"null", `null`, []string{"expected a JSON object"}},
		{"v10 missing everything", `{"supportedInterfaces":[]}`, []string{
			"name: required field missing", "description: required field missing", "version: required field missing",
			"capabilities: required field missing", "defaultInputModes: required field missing",
			"defaultOutputModes: required field missing", "skills: required field missing",
		}},
		{"v10 null field counts as missing", v10(`"supportedInterfaces":[` + v10Iface + `],"skills":null`), []string{"skills: required field missing"}},
		{"v10 empty interfaces", v10(`"supportedInterfaces":[],"skills":[` + v10Skill + `]`), []string{"supportedInterfaces: at least one interface"}},
		{"v10 interface without version", v10(`"supportedInterfaces":[{"url":"http://h/a","protocolBinding":"JSONRPC"}],"skills":[` + v10Skill + `]`),
			[]string{"supportedInterfaces[0].protocolVersion: required field missing"}},
		{"v10 skill without tags", v10(`"supportedInterfaces":[` + v10Iface + `],"skills":[{"id":"s","name":"S","description":"d"}]`),
			[]string{"skills[0].tags: required field missing"}},
		{"v10 protocolVersion without interfaces", `{"protocolVersion":"1.0","name":"n"}`, []string{"supportedInterfaces: required field missing"}},
		{"v03 missing url", `{"protocolVersion":"0.3.0","name":"n","description":"d","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`,
			[]string{"url: required field missing"}},
		{"v01 skill without id", `{"name":"n","url":"u","version":"1","capabilities":{},"skills":[{"name":"S"}]}`, []string{"skills[0].id: required field missing"}},
		{"skills not an array", `{"name":"n","url":"u","version":"1","capabilities":{},"skills":{}}`, []string{"skills: must be an array"}},
		{"unknown protocolVersion", `{"protocolVersion":"2.0","name":"n"}`, []string{`protocolVersion: unsupported version "2.0"`}},
		{"protocolVersion not a string", `{"protocolVersion":3}`, []string{"protocolVersion: must be a string"}},
		{"wrong type", v10(`"supportedInterfaces":[` + v10Iface + `],"skills":[{"id":"s","name":7,"description":"d","tags":["t"]}]`), []string{"skills.name: expected string"}},
		{"unknown scheme type", `{"protocolVersion":"0.3.0","name":"n","description":"d","url":"u","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],"securitySchemes":{"x":{"type":"saml"}}}`,
			[]string{`securitySchemes.x: type: unknown security scheme type "saml"`}},
		{"scheme without type", `{"protocolVersion":"0.3.0","name":"n","description":"d","url":"u","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],"securitySchemes":{"x":{}}}`,
			[]string{"securitySchemes.x: type: required field missing"}},
		{"two one-of members", v10(`"supportedInterfaces":[` + v10Iface + `],"skills":[],"securitySchemes":{"x":{"mtlsSecurityScheme":{},"httpAuthSecurityScheme":{"scheme":"basic"}}}`),
			[]string{"securitySchemes.x: more than one scheme member"}},
	}
	for _, tc := range cases {
		c, err := Parse([]byte(tc.doc))
		require.Error(t, err, tc.name)
		assert.Nil(t, c, tc.name)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w, tc.name)
		}
	}
}

func TestParseDurationExtension(t *testing.T) {
	t.Parallel()
	doc := func(params string) []byte {
		return []byte(`{"name":"n","description":"d","version":"1","defaultInputModes":[],"defaultOutputModes":[],
			"supportedInterfaces":[{"url":"http://h/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
			"capabilities":{"extensions":[{"uri":"` + DurationExtensionURI + `","params":` + params + `}]},
			"skills":[{"id":"a","name":"A","description":"d","tags":["t"]},{"id":"b","name":"B","description":"d","tags":["t"]}]}`)
	}
	c, err := Parse(doc(`{"a":"1.5s","ghost":"3s"}`))
	require.NoError(t, err)
	assert.Equal(t, 1500*time.Millisecond, c.Skill("a").EstimatedDuration)
	assert.Zero(t, c.Skill("b").EstimatedDuration)
	assert.Empty(t, c.Capabilities.Extensions)

	_, err = Parse(doc(`{"a":"soon"}`))
	assert.ErrorContains(t, err, `capabilities.extensions[0].params.a: invalid duration "soon"`)
	_, err = Parse(doc(`{"b":5}`))
	assert.ErrorContains(t, err, "capabilities.extensions[0].params.b: expected a duration string")
	_, err = Parse(doc(`{"a":"-1s"}`))
	assert.ErrorContains(t, err, "params.a: invalid duration")
}

func TestParseNeverPanics(t *testing.T) {
	t.Parallel()
	b, err := Render(fullCard(wire.V10))
	require.NoError(t, err)
	// Every prefix of a valid card is malformed JSON; none may panic.
	for i := range len(b) {
		_, err := Parse(b[:i])
		require.Error(t, err)
	}
	// Values of every JSON type in every top-level field.
	for _, v := range []string{`null`, `1`, `"s"`, `true`, `[]`, `{}`, `[1]`, `[{}]`} {
		for _, k := range []string{"name", "supportedInterfaces", "capabilities", "skills", "securitySchemes", "securityRequirements", "provider", "protocolVersion", "authentication", "additionalInterfaces"} {
			doc := strings.Replace(string(b), `{`, `{"`+k+`":`+v+`,`, 1)
			assert.NotPanics(t, func() { _, _ = Parse([]byte(doc)) }, "%s=%s", k, v)
		}
	}
}
