// Package cardjson holds the wire shapes of the Agent Card, one struct per
// dialect. Typed structs (not maps) keep the field order, and therefore the
// bytes, stable; the only maps
// are the ones the spec itself defines as maps (securitySchemes, security,
// scopes, extension params), which encoding/json writes in key order.
//
// Package cards parses and renders through them; nothing outside cards uses
// them, which is why the package is internal.
package cardjson

// Provider is AgentProvider in every dialect. v0.1 made url optional, the
// later dialects require it, so it is omitted only when empty.
type Provider struct {
	Organization string `json:"organization"`
	URL          string `json:"url,omitempty"`
}

// Extension is AgentExtension (v0.2.2+ and v1.0 agree on the shape).
type Extension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// Skill is AgentSkill. Its JSON shape is the same from v0.1 to v1.0 for
// the fields the model carries.
type Skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// OAuthFlow is one OAuth2 flow; the model only carries client
// credentials, but parsing reads any flow that has a token URL.
type OAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl,omitempty"`
	TokenURL         string            `json:"tokenUrl,omitempty"`
	Scopes           map[string]string `json:"scopes"`
}

// OAuthFlows is OAuthFlows (same keys in v0.2, v0.3 and v1.0).
type OAuthFlows struct {
	AuthorizationCode *OAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *OAuthFlow `json:"clientCredentials,omitempty"`
	DeviceCode        *OAuthFlow `json:"deviceCode,omitempty"`
	Implicit          *OAuthFlow `json:"implicit,omitempty"`
	Password          *OAuthFlow `json:"password,omitempty"`
}

// V03Scheme is a v0.2/v0.3 SecurityScheme: one flat object discriminated by
// `type`.
type V03Scheme struct {
	Type             string      `json:"type,omitempty"`
	Description      string      `json:"description,omitempty"`
	In               string      `json:"in,omitempty"`
	Name             string      `json:"name,omitempty"`
	Scheme           string      `json:"scheme,omitempty"`
	BearerFormat     string      `json:"bearerFormat,omitempty"`
	Flows            *OAuthFlows `json:"flows,omitempty"`
	OpenIDConnectURL string      `json:"openIdConnectUrl,omitempty"`
}

// V10Scheme is a v1.0 SecurityScheme: a one-of whose member key names the
// scheme type.
type V10Scheme struct {
	APIKey *V10APIKeyScheme `json:"apiKeySecurityScheme,omitempty"`
	HTTP   *V10HTTPScheme   `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2 *V10OAuth2Scheme `json:"oauth2SecurityScheme,omitempty"`
	OIDC   *V10OIDCScheme   `json:"openIdConnectSecurityScheme,omitempty"`
	MTLS   *V10MTLSScheme   `json:"mtlsSecurityScheme,omitempty"`
}

// V10APIKeyScheme is a v1.0 apiKeySecurityScheme.
type V10APIKeyScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// V10HTTPScheme is a v1.0 httpAuthSecurityScheme.
type V10HTTPScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// V10OAuth2Scheme is a v1.0 oauth2SecurityScheme.
type V10OAuth2Scheme struct {
	Description string     `json:"description,omitempty"`
	Flows       OAuthFlows `json:"flows"`
}

// V10OIDCScheme is a v1.0 openIdConnectSecurityScheme.
type V10OIDCScheme struct {
	Description      string `json:"description,omitempty"`
	OpenIDConnectURL string `json:"openIdConnectUrl"`
}

// V10MTLSScheme is a v1.0 mtlsSecurityScheme.
type V10MTLSScheme struct {
	Description string `json:"description,omitempty"`
}

// HybridScheme carries both the v0.3 flat fields and the v1.0 one-of member,
// so each generation of client finds the shape it knows. Parsing reads every
// dialect's schemes through it.
type HybridScheme struct {
	V03Scheme
	V10Scheme
}

// V10StringList is the v1.0 StringList wrapper of a scope list.
type V10StringList struct {
	List []string `json:"list"`
}

// V10SecurityRequirement is one alternative of v1.0 securityRequirements.
type V10SecurityRequirement struct {
	Schemes map[string]V10StringList `json:"schemes"`
}

// V10Interface is a v1.0 AgentInterface.
type V10Interface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
	Tenant          string `json:"tenant,omitempty"`
}

// V03Interface is a v0.2.4+/v0.3 AgentInterface.
type V03Interface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

// V10Capabilities is a v1.0 card's capabilities.
type V10Capabilities struct {
	Streaming         bool        `json:"streaming"`
	PushNotifications bool        `json:"pushNotifications"`
	Extensions        []Extension `json:"extensions,omitempty"`
	ExtendedAgentCard bool        `json:"extendedAgentCard"`
}

// V03Capabilities is a v0.3 (and v0.2) card's capabilities.
type V03Capabilities struct {
	Streaming              bool        `json:"streaming"`
	PushNotifications      bool        `json:"pushNotifications"`
	StateTransitionHistory bool        `json:"stateTransitionHistory"`
	Extensions             []Extension `json:"extensions,omitempty"`
}

// V01Capabilities is a v0.1 card's capabilities.
type V01Capabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

// HybridCapabilities is the union of the v0.3 and v1.0 capability fields.
type HybridCapabilities struct {
	Streaming              bool        `json:"streaming"`
	PushNotifications      bool        `json:"pushNotifications"`
	StateTransitionHistory bool        `json:"stateTransitionHistory"`
	Extensions             []Extension `json:"extensions,omitempty"`
	ExtendedAgentCard      bool        `json:"extendedAgentCard"`
}

// V10Card is the v1.0 AgentCard (proto field order).
type V10Card struct {
	Name                 string                   `json:"name"`
	Description          string                   `json:"description"`
	SupportedInterfaces  []V10Interface           `json:"supportedInterfaces"`
	Provider             *Provider                `json:"provider,omitempty"`
	Version              string                   `json:"version"`
	DocumentationURL     string                   `json:"documentationUrl,omitempty"`
	Capabilities         V10Capabilities          `json:"capabilities"`
	SecuritySchemes      map[string]V10Scheme     `json:"securitySchemes,omitempty"`
	SecurityRequirements []V10SecurityRequirement `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                 `json:"defaultInputModes"`
	DefaultOutputModes   []string                 `json:"defaultOutputModes"`
	Skills               []Skill                  `json:"skills"`
	IconURL              string                   `json:"iconUrl,omitempty"`
}

// V03Card is the v0.3.0 AgentCard, also used for v0.2.6 (which has a subset
// of its fields; the renderer leaves the rest empty).
type V03Card struct {
	ProtocolVersion                   string                `json:"protocolVersion"`
	Name                              string                `json:"name"`
	Description                       string                `json:"description"`
	URL                               string                `json:"url"`
	PreferredTransport                string                `json:"preferredTransport,omitempty"`
	AdditionalInterfaces              []V03Interface        `json:"additionalInterfaces,omitempty"`
	IconURL                           string                `json:"iconUrl,omitempty"`
	Provider                          *Provider             `json:"provider,omitempty"`
	Version                           string                `json:"version"`
	DocumentationURL                  string                `json:"documentationUrl,omitempty"`
	Capabilities                      V03Capabilities       `json:"capabilities"`
	SecuritySchemes                   map[string]V03Scheme  `json:"securitySchemes,omitempty"`
	Security                          []map[string][]string `json:"security,omitempty"`
	DefaultInputModes                 []string              `json:"defaultInputModes"`
	DefaultOutputModes                []string              `json:"defaultOutputModes"`
	SupportsAuthenticatedExtendedCard bool                  `json:"supportsAuthenticatedExtendedCard,omitempty"`
	Skills                            []Skill               `json:"skills"`
}

// V01Auth is the v0.1 AgentAuthentication.
type V01Auth struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// V01Card is the v0.1.0 AgentCard.
type V01Card struct {
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	URL                string          `json:"url"`
	Provider           *Provider       `json:"provider,omitempty"`
	Version            string          `json:"version"`
	DocumentationURL   string          `json:"documentationUrl,omitempty"`
	Capabilities       V01Capabilities `json:"capabilities"`
	Authentication     *V01Auth        `json:"authentication,omitempty"`
	DefaultInputModes  []string        `json:"defaultInputModes"`
	DefaultOutputModes []string        `json:"defaultOutputModes"`
	Skills             []Skill         `json:"skills"`
}

// HybridCard carries the v1.0 card plus the v0.3 fields v1.0 removed or
// renamed.
type HybridCard struct {
	ProtocolVersion                   string                   `json:"protocolVersion"`
	Name                              string                   `json:"name"`
	Description                       string                   `json:"description"`
	SupportedInterfaces               []V10Interface           `json:"supportedInterfaces"`
	URL                               string                   `json:"url"`
	PreferredTransport                string                   `json:"preferredTransport"`
	AdditionalInterfaces              []V03Interface           `json:"additionalInterfaces,omitempty"`
	Provider                          *Provider                `json:"provider,omitempty"`
	Version                           string                   `json:"version"`
	DocumentationURL                  string                   `json:"documentationUrl,omitempty"`
	Capabilities                      HybridCapabilities       `json:"capabilities"`
	SecuritySchemes                   map[string]HybridScheme  `json:"securitySchemes,omitempty"`
	SecurityRequirements              []V10SecurityRequirement `json:"securityRequirements,omitempty"`
	Security                          []map[string][]string    `json:"security,omitempty"`
	DefaultInputModes                 []string                 `json:"defaultInputModes"`
	DefaultOutputModes                []string                 `json:"defaultOutputModes"`
	SupportsAuthenticatedExtendedCard bool                     `json:"supportsAuthenticatedExtendedCard,omitempty"`
	Skills                            []Skill                  `json:"skills"`
	IconURL                           string                   `json:"iconUrl,omitempty"`
}
