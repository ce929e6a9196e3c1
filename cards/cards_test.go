package cards

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

var (
	kebabRE  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	semverRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
)

// withInterfaces is a generated card with the interfaces a server would add.
func withInterfaces(c *Card) *Card {
	c.Interfaces = []Interface{
		{URL: "http://127.0.0.1:8080/a2a", Binding: wire.BindingJSONRPC, Version: wire.V10},
		{URL: "http://127.0.0.1:8080/rest", Binding: wire.BindingREST, Version: wire.V10, Tenant: "acme"},
		{URL: "http://127.0.0.1:8080/a2a", Binding: wire.BindingJSONRPC, Version: wire.V03},
	}
	return c
}

// fullCard uses every field of the model, including every scheme type.
func fullCard(d wire.Dialect) *Card {
	c := withInterfaces(Generate("Full Agent", 7))
	c.Dialect = d
	c.Capabilities.PushNotifications = true
	c.Capabilities.StateTransitionHistory = true
	c.Capabilities.ExtendedAgentCard = true
	c.Capabilities.Extensions = []Extension{{
		URI:         "https://ext.example/traceparent/v1",
		Description: "propagates trace context",
		Required:    true,
		Params:      map[string]any{"header": "traceparent"},
	}}
	c.SecuritySchemes = map[string]SecurityScheme{
		"key":    {Type: SchemeAPIKey, Description: "tenant key", In: "header", Name: "X-API-Key"},
		"bearer": {Type: SchemeHTTP, Scheme: "bearer", BearerFormat: "JWT"},
		"oauth": {Type: SchemeOAuth2, TokenURL: "https://auth.full.example/token",
			Scopes: map[string]string{"tasks:read": "read tasks", "tasks:write": "send messages"}},
		"oidc": {Type: SchemeOpenIDConnect, OpenIDConnectURL: "https://auth.full.example/.well-known/openid-configuration"},
		"mtls": {Type: SchemeMutualTLS, Description: "client certificate"},
	}
	c.Security = []map[string][]string{
		{"oauth": {"tasks:read", "tasks:write"}},
		{"key": nil, "mtls": nil},
		{"bearer": nil},
		{"oidc": {"openid"}},
	}
	return c
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{0, 1, 42, 1 << 63, hashName("echo")} {
		a, b := Generate("echo", seed), Generate("echo", seed)
		assert.Equal(t, a, b, "seed %d", seed)
		ra, err := Render(withInterfaces(a))
		require.NoError(t, err)
		rb, err := Render(withInterfaces(b))
		require.NoError(t, err)
		assert.Equal(t, string(ra), string(rb))
	}
	assert.NotEqual(t, Generate("echo", 1), Generate("echo", 2), "different seeds")
	assert.NotEqual(t, Generate("echo", 1).Skills, Generate("weather", 1).Skills, "different names")
	// seed^hash == 0 would make gofakeit seed itself from crypto/rand.
	assert.Equal(t, Generate("", hashName("")), Generate("", hashName("")))
}

func TestGenerateShape(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		c := Generate("Shape Agent", seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		assert.Equal(t, "Shape Agent", c.Name)
		assert.Equal(t, wire.V10, c.Dialect)
		assert.NotEmpty(t, c.Description)
		assert.Regexp(t, semverRE, c.Version)
		assert.True(t, c.Capabilities.Streaming)
		assert.Equal(t, []string{ModeText, ModeJSON}, c.DefaultInputModes)
		assert.Equal(t, []string{ModeText, ModeJSON}, c.DefaultOutputModes)
		assert.Empty(t, c.Interfaces, "the server fills interfaces")
		require.NotNil(t, c.Provider)
		assert.NotEmpty(t, c.Provider.Organization)
		for _, raw := range []string{c.Provider.URL, c.DocumentationURL, c.IconURL} {
			u, err := url.Parse(raw)
			require.NoError(t, err)
			assert.Equal(t, "https", u.Scheme)
			assert.True(t, strings.HasSuffix(u.Hostname(), ".example"), "host %q is not on .example", u.Hostname())
		}

		require.GreaterOrEqual(t, len(c.Skills), 2)
		require.LessOrEqual(t, len(c.Skills), 3)
		needsInput := 0
		for _, s := range c.Skills {
			assert.Regexp(t, kebabRE, s.ID)
			assert.NotEmpty(t, s.Name)
			assert.NotEmpty(t, s.Description)
			assert.NotEmpty(t, s.Tags)
			assert.Len(t, s.Examples, 2)
			for _, m := range slices.Concat(s.InputModes, s.OutputModes) {
				assert.Contains(t, []string{ModeText, ModeJSON}, m)
			}
			assert.NotEmpty(t, s.InputModes)
			assert.NotEmpty(t, s.OutputModes)
			assert.GreaterOrEqual(t, s.EstimatedDuration, 2*time.Second)
			assert.LessOrEqual(t, s.EstimatedDuration, 30*time.Second)
			if s.NeedsInput {
				needsInput++
				assert.True(t, strings.HasSuffix(s.InputPrompt, "?"), "prompt %q is not a question", s.InputPrompt)
			} else {
				assert.Empty(t, s.InputPrompt)
			}
		}
		assert.Equal(t, 1, needsInput, "exactly one skill needs input")
	}
	assert.NotEmpty(t, Generate("", 3).Name, "an empty name is generated")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	err := (&Card{Dialect: "9.9", Skills: []Skill{{}, {}}}).Validate()
	require.Error(t, err)
	for _, want := range []string{
		"name: required", "description: required", "version: required", `dialect: unknown dialect "9.9"`,
		"skills[0].id: required", "skills[0].name: required", "skills[1].description: required", "skills[1].tags:",
	} {
		assert.Contains(t, err.Error(), want)
	}

	err = (&Card{Name: "n", Description: "d", Version: "1"}).Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "skills: at least one skill is required")

	c := fullCard(wire.V10)
	require.NoError(t, c.Validate())
	c.Skills[1].ID = c.Skills[0].ID
	c.Security = append(c.Security, map[string][]string{"nope": nil})
	c.SecuritySchemes["key"] = SecurityScheme{Type: SchemeAPIKey, In: "body"}
	c.SecuritySchemes["weird"] = SecurityScheme{Type: "saml"}
	c.Provider.URL = ""
	c.Interfaces[1].URL = ""
	err = c.Validate()
	require.Error(t, err)
	for _, want := range []string{
		`skills[1].id: duplicate id`, "security[4].nope: names no declared security scheme",
		`securitySchemes.key.in: must be header, query or cookie, not "body"`, "securitySchemes.key.name: required",
		`securitySchemes.weird.type: unknown security scheme type "saml"`, "provider.url: required",
		"interfaces[1].url: required",
	} {
		assert.Contains(t, err.Error(), want)
	}

	assert.NoError(t, Generate("x", 1).Validate(), "interfaces are not needed to validate")
	err = Generate("x", 1).ValidateForRender()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "interfaces: at least one interface")
	assert.Error(t, (*Card)(nil).Validate())
	assert.Error(t, (*Card)(nil).ValidateForRender())
}

// Generated cards are cached; every caller still gets a card of its own.
func TestGenerateReturnsIndependentCopies(t *testing.T) {
	t.Parallel()
	a := Generate("copies", 9)
	b := Generate("copies", 9)
	require.Equal(t, a, b)
	a.Skills[0].Tags[0] = "changed"
	a.DefaultInputModes[0] = "changed"
	a.Capabilities.Extensions = nil
	a.Skills = append(a.Skills[:0], Skill{ID: "only"})
	c := Generate("copies", 9)
	assert.Equal(t, b, c, "a caller's edits never reach the next caller")
	assert.NotEqual(t, "changed", c.Skills[0].Tags[0])
}

func TestSkillIDs(t *testing.T) {
	t.Parallel()
	c := &Card{Skills: []Skill{{ID: "a"}, {ID: "b"}}}
	if got := c.SkillIDs(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("SkillIDs = %v, want [a b]", got)
	}
	if got := (&Card{}).SkillIDs(); len(got) != 0 {
		t.Fatalf("SkillIDs of a card without skills = %v", got)
	}
}

func TestGRPCTarget(t *testing.T) {
	for origin, want := range map[string]string{
		"http://127.0.0.1:8080":  "127.0.0.1:8080",
		"https://localhost:8443": "localhost:8443",
		"127.0.0.1:9000":         "127.0.0.1:9000",
	} {
		if got := GRPCTarget(origin); got != want {
			t.Errorf("GRPCTarget(%q) = %q, want %q", origin, got, want)
		}
	}
}
