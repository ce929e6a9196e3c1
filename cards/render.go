package cards

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/a2amock/a2amock/cards/internal/cardjson"
	"github.com/a2amock/a2amock/wire"
)

// Render renders c in the shape of c.Dialect: a v1.0 card (protoJSON of
// AgentCard), a v0.3.0 card, a v0.2.6 card or a v0.1.0 card. The output is
// deterministic. Render fails if ValidateForRender does, so every card it
// returns is one the dialect's schema accepts.
//
// What each dialect cannot carry is dropped: v1.0 has no
// stateTransitionHistory; v0.3 has no interface tenant; v0.2.6 additionally
// has no mutualTLS scheme (such schemes, and every security alternative that
// names one, are left out); v0.1 has no extensions (so no skill durations),
// no iconUrl, no interfaces beyond url and only scheme names under
// authentication.
func Render(c *Card) ([]byte, error) {
	if err := c.ValidateForRender(); err != nil {
		return nil, fmt.Errorf("render card: %w", err)
	}
	var v any
	switch d := wire.Describe(c.Dialect); d.CardShape {
	case wire.CardShapeV10:
		v = renderV10(c)
	case wire.CardShapeV03:
		v = renderV03(c, d.CardProtocolVersion, d.CardMutualTLS)
	case wire.CardShapeV01:
		v = renderV01(c)
	default:
		return nil, fmt.Errorf("render card: dialect: unknown dialect %q", c.Dialect)
	}
	return json.Marshal(v)
}

// The two dialects a hybrid card serves at once, by definition (a2a-go's
// a2av0 card producer): the v1.0 card with the v0.3 fields added.
const (
	hybridModern = wire.V10
	hybridLegacy = wire.V03
)

// RenderHybrid renders c as a card that both v1.0 and v0.3 clients can read:
// the v1.0 card plus the v0.3 fields (protocolVersion "0.3.0", url,
// preferredTransport, additionalInterfaces, security,
// supportsAuthenticatedExtendedCard, capabilities.stateTransitionHistory),
// and security schemes that carry both the v0.3 `type` fields and the v1.0
// one-of member, the way a2a-go's a2av0 card producer does. c.Dialect is
// ignored.
//
// The result deliberately fails strict v1.0 JSON Schema validation: the v1.0
// schema sets additionalProperties to false, and the v0.3 fields are exactly
// such additional properties. It is valid against the v0.3.0 schema.
//
// url and preferredTransport come from the first interface declaring version
// 0.3, or the first interface if none does.
func RenderHybrid(c *Card) ([]byte, error) {
	if c == nil {
		return nil, fmt.Errorf("render hybrid card: %w", c.Validate())
	}
	cp := *c
	cp.Dialect = hybridModern // the hybrid's shape does not depend on it
	c = &cp
	if err := c.ValidateForRender(); err != nil {
		return nil, fmt.Errorf("render hybrid card: %w", err)
	}
	v10 := renderV10(c)
	primary := c.Interfaces[0]
	for _, in := range c.Interfaces {
		if in.Version == hybridLegacy {
			primary = in
			break
		}
	}
	h := cardjson.HybridCard{
		ProtocolVersion:      wire.Describe(hybridLegacy).CardProtocolVersion,
		Name:                 v10.Name,
		Description:          v10.Description,
		SupportedInterfaces:  v10.SupportedInterfaces,
		URL:                  primary.URL,
		PreferredTransport:   string(primary.Binding),
		AdditionalInterfaces: v03Interfaces(c.Interfaces),
		Provider:             v10.Provider,
		Version:              v10.Version,
		DocumentationURL:     v10.DocumentationURL,
		Capabilities: cardjson.HybridCapabilities{
			Streaming:              c.Capabilities.Streaming,
			PushNotifications:      c.Capabilities.PushNotifications,
			StateTransitionHistory: c.Capabilities.StateTransitionHistory,
			Extensions:             v10.Capabilities.Extensions,
			ExtendedAgentCard:      c.Capabilities.ExtendedAgentCard,
		},
		SecurityRequirements:              v10.SecurityRequirements,
		Security:                          v03Security(c.Security, nil),
		DefaultInputModes:                 v10.DefaultInputModes,
		DefaultOutputModes:                v10.DefaultOutputModes,
		SupportsAuthenticatedExtendedCard: c.Capabilities.ExtendedAgentCard,
		Skills:                            v10.Skills,
		IconURL:                           v10.IconURL,
	}
	if len(c.SecuritySchemes) > 0 {
		h.SecuritySchemes = make(map[string]cardjson.HybridScheme, len(c.SecuritySchemes))
		for name, s := range c.SecuritySchemes {
			h.SecuritySchemes[name] = cardjson.HybridScheme{V03Scheme: toV03Scheme(s), V10Scheme: toV10Scheme(s)}
		}
	}
	return json.Marshal(h)
}

func renderV10(c *Card) cardjson.V10Card {
	out := cardjson.V10Card{
		Name:             c.Name,
		Description:      c.Description,
		Provider:         toWireProvider(c.Provider),
		Version:          c.Version,
		DocumentationURL: c.DocumentationURL,
		Capabilities: cardjson.V10Capabilities{
			Streaming:         c.Capabilities.Streaming,
			PushNotifications: c.Capabilities.PushNotifications,
			Extensions:        renderExtensions(c),
			ExtendedAgentCard: c.Capabilities.ExtendedAgentCard,
		},
		DefaultInputModes:  nonNil(c.DefaultInputModes),
		DefaultOutputModes: nonNil(c.DefaultOutputModes),
		Skills:             toWireSkills(c.Skills),
		IconURL:            c.IconURL,
	}
	for _, in := range c.Interfaces {
		ver := in.Version
		if ver == "" {
			ver = c.Dialect
		}
		out.SupportedInterfaces = append(out.SupportedInterfaces, cardjson.V10Interface{
			URL:             in.URL,
			ProtocolBinding: string(in.Binding),
			ProtocolVersion: string(ver),
			Tenant:          in.Tenant,
		})
	}
	if len(c.SecuritySchemes) > 0 {
		out.SecuritySchemes = make(map[string]cardjson.V10Scheme, len(c.SecuritySchemes))
		for name, s := range c.SecuritySchemes {
			out.SecuritySchemes[name] = toV10Scheme(s)
		}
	}
	for _, alt := range c.Security {
		req := cardjson.V10SecurityRequirement{Schemes: make(map[string]cardjson.V10StringList, len(alt))}
		for name, scopes := range alt {
			req.Schemes[name] = cardjson.V10StringList{List: nonNil(scopes)}
		}
		out.SecurityRequirements = append(out.SecurityRequirements, req)
	}
	return out
}

// renderV03 renders the v0.3.0 card, or with mtls=false the v0.2.6 card,
// which lacks the mutualTLS scheme.
func renderV03(c *Card, protocolVersion string, mtls bool) cardjson.V03Card {
	first := c.Interfaces[0]
	out := cardjson.V03Card{
		ProtocolVersion:      protocolVersion,
		Name:                 c.Name,
		Description:          c.Description,
		URL:                  first.URL,
		PreferredTransport:   string(first.Binding),
		AdditionalInterfaces: v03Interfaces(c.Interfaces),
		IconURL:              c.IconURL,
		Provider:             toWireProvider(c.Provider),
		Version:              c.Version,
		DocumentationURL:     c.DocumentationURL,
		Capabilities: cardjson.V03Capabilities{
			Streaming:              c.Capabilities.Streaming,
			PushNotifications:      c.Capabilities.PushNotifications,
			StateTransitionHistory: c.Capabilities.StateTransitionHistory,
			Extensions:             renderExtensions(c),
		},
		DefaultInputModes:                 nonNil(c.DefaultInputModes),
		DefaultOutputModes:                nonNil(c.DefaultOutputModes),
		SupportsAuthenticatedExtendedCard: c.Capabilities.ExtendedAgentCard,
		Skills:                            toWireSkills(c.Skills),
	}
	dropped := map[string]bool{}
	for name, s := range c.SecuritySchemes {
		if !mtls && s.Type == SchemeMutualTLS {
			dropped[name] = true
			continue
		}
		if out.SecuritySchemes == nil {
			out.SecuritySchemes = map[string]cardjson.V03Scheme{}
		}
		out.SecuritySchemes[name] = toV03Scheme(s)
	}
	out.Security = v03Security(c.Security, dropped)
	return out
}

func renderV01(c *Card) cardjson.V01Card {
	out := cardjson.V01Card{
		Name:             c.Name,
		Description:      c.Description,
		URL:              c.Interfaces[0].URL,
		Provider:         toWireProvider(c.Provider),
		Version:          c.Version,
		DocumentationURL: c.DocumentationURL,
		Capabilities: cardjson.V01Capabilities{
			Streaming:              c.Capabilities.Streaming,
			PushNotifications:      c.Capabilities.PushNotifications,
			StateTransitionHistory: c.Capabilities.StateTransitionHistory,
		},
		DefaultInputModes:  nonNil(c.DefaultInputModes),
		DefaultOutputModes: nonNil(c.DefaultOutputModes),
		Skills:             toWireSkills(c.Skills),
	}
	if len(c.SecuritySchemes) > 0 {
		auth := &cardjson.V01Auth{}
		for _, name := range sortedKeys(c.SecuritySchemes) {
			auth.Schemes = append(auth.Schemes, v01SchemeName(c.SecuritySchemes[name]))
		}
		out.Authentication = auth
	}
	return out
}

// v01SchemeName is the v0.1 authentication scheme string for s. v0.1 only
// listed names ("Basic", "Bearer", ...), so everything but the name is lost.
func v01SchemeName(s SecurityScheme) string {
	switch s.Type {
	case SchemeHTTP:
		return capitalize(s.Scheme)
	case SchemeAPIKey:
		return "ApiKey"
	case SchemeOAuth2:
		return "OAuth2"
	case SchemeOpenIDConnect:
		return "OpenIdConnect"
	case SchemeMutualTLS:
		return "MutualTLS"
	}
	return s.Type
}

// renderExtensions returns the card's extensions followed by the duration
// extension when any skill declares a duration. A configured extension with
// the duration URI is replaced, so the skills stay the single source.
func renderExtensions(c *Card) []cardjson.Extension {
	var out []cardjson.Extension
	for _, e := range c.Capabilities.Extensions {
		if e.URI == DurationExtensionURI {
			continue
		}
		out = append(out, cardjson.Extension(e))
	}
	params := map[string]any{}
	for _, s := range c.Skills {
		if s.EstimatedDuration > 0 {
			params[s.ID] = s.EstimatedDuration.String()
		}
	}
	if len(params) > 0 {
		out = append(out, cardjson.Extension{
			URI:         DurationExtensionURI,
			Description: "Estimated duration of each skill, keyed by skill id, in Go duration syntax.",
			Params:      params,
		})
	}
	return out
}

func toWireProvider(p *Provider) *cardjson.Provider {
	if p == nil {
		return nil
	}
	return &cardjson.Provider{Organization: p.Organization, URL: p.URL}
}

func toWireSkills(skills []Skill) []cardjson.Skill {
	out := make([]cardjson.Skill, 0, len(skills))
	for _, s := range skills {
		out = append(out, cardjson.Skill{
			ID:          s.ID,
			Name:        s.Name,
			Description: s.Description,
			Tags:        nonNil(s.Tags),
			Examples:    s.Examples,
			InputModes:  s.InputModes,
			OutputModes: s.OutputModes,
		})
	}
	return out
}

func v03Interfaces(ins []Interface) []cardjson.V03Interface {
	out := make([]cardjson.V03Interface, 0, len(ins))
	for _, in := range ins {
		out = append(out, cardjson.V03Interface{URL: in.URL, Transport: string(in.Binding)})
	}
	return out
}

// v03Security renders the requirement alternatives, leaving out every
// alternative that names a dropped scheme: keeping it without that scheme
// would declare a weaker requirement than the agent has.
func v03Security(sec []map[string][]string, dropped map[string]bool) []map[string][]string {
	var out []map[string][]string
	for _, alt := range sec {
		keep := true
		m := make(map[string][]string, len(alt))
		for name, scopes := range alt {
			if dropped[name] {
				keep = false
				break
			}
			m[name] = nonNil(scopes)
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}

func toV03Scheme(s SecurityScheme) cardjson.V03Scheme {
	out := cardjson.V03Scheme{Type: s.Type, Description: s.Description}
	switch s.Type {
	case SchemeAPIKey:
		out.In, out.Name = s.In, s.Name
	case SchemeHTTP:
		out.Scheme, out.BearerFormat = s.Scheme, s.BearerFormat
	case SchemeOAuth2:
		out.Flows = clientCredentialsFlows(s)
	case SchemeOpenIDConnect:
		out.OpenIDConnectURL = s.OpenIDConnectURL
	}
	return out
}

func toV10Scheme(s SecurityScheme) cardjson.V10Scheme {
	switch s.Type {
	case SchemeAPIKey:
		return cardjson.V10Scheme{APIKey: &cardjson.V10APIKeyScheme{Description: s.Description, Location: s.In, Name: s.Name}}
	case SchemeHTTP:
		return cardjson.V10Scheme{HTTP: &cardjson.V10HTTPScheme{Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat}}
	case SchemeOAuth2:
		return cardjson.V10Scheme{OAuth2: &cardjson.V10OAuth2Scheme{Description: s.Description, Flows: *clientCredentialsFlows(s)}}
	case SchemeOpenIDConnect:
		return cardjson.V10Scheme{OIDC: &cardjson.V10OIDCScheme{Description: s.Description, OpenIDConnectURL: s.OpenIDConnectURL}}
	default: // SchemeMutualTLS; Validate rejects anything else.
		return cardjson.V10Scheme{MTLS: &cardjson.V10MTLSScheme{Description: s.Description}}
	}
}

func clientCredentialsFlows(s SecurityScheme) *cardjson.OAuthFlows {
	scopes := s.Scopes
	if scopes == nil {
		scopes = map[string]string{} // the schemas require an object, never null
	}
	return &cardjson.OAuthFlows{ClientCredentials: &cardjson.OAuthFlow{TokenURL: s.TokenURL, Scopes: scopes}}
}

// nonNil turns a nil slice into an empty one, because the schemas require
// arrays where encoding/json would write null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
