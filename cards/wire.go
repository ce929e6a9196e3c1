package cards

// Wire shapes of the Agent Card, one struct per dialect. Typed structs (not
// maps) keep the field order, and therefore the bytes, stable; the only maps
// are the ones the spec itself defines as maps (securitySchemes, security,
// scopes, extension params), which encoding/json writes in key order.

// wireProvider is AgentProvider in every dialect. v0.1 made url optional, the
// later dialects require it, so it is omitted only when empty.
type wireProvider struct {
	Organization string `json:"organization"`
	URL          string `json:"url,omitempty"`
}

// wireExtension is AgentExtension (v0.2.2+ and v1.0 agree on the shape).
type wireExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// wireSkill is AgentSkill. Its JSON shape is the same from v0.1 to v1.0 for
// the fields the model carries.
type wireSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// wireOAuthFlow is one OAuth2 flow; the model only carries client
// credentials, but parsing reads any flow that has a token URL.
type wireOAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl,omitempty"`
	TokenURL         string            `json:"tokenUrl,omitempty"`
	Scopes           map[string]string `json:"scopes"`
}

// wireOAuthFlows is OAuthFlows (same keys in v0.2, v0.3 and v1.0).
type wireOAuthFlows struct {
	AuthorizationCode *wireOAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *wireOAuthFlow `json:"clientCredentials,omitempty"`
	DeviceCode        *wireOAuthFlow `json:"deviceCode,omitempty"`
	Implicit          *wireOAuthFlow `json:"implicit,omitempty"`
	Password          *wireOAuthFlow `json:"password,omitempty"`
}

// v03Scheme is a v0.2/v0.3 SecurityScheme: one flat object discriminated by
// `type`.
type v03Scheme struct {
	Type             string          `json:"type,omitempty"`
	Description      string          `json:"description,omitempty"`
	In               string          `json:"in,omitempty"`
	Name             string          `json:"name,omitempty"`
	Scheme           string          `json:"scheme,omitempty"`
	BearerFormat     string          `json:"bearerFormat,omitempty"`
	Flows            *wireOAuthFlows `json:"flows,omitempty"`
	OpenIDConnectURL string          `json:"openIdConnectUrl,omitempty"`
}

// v10Scheme is a v1.0 SecurityScheme: a one-of whose member key names the
// scheme type.
type v10Scheme struct {
	APIKey *v10APIKeyScheme `json:"apiKeySecurityScheme,omitempty"`
	HTTP   *v10HTTPScheme   `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2 *v10OAuth2Scheme `json:"oauth2SecurityScheme,omitempty"`
	OIDC   *v10OIDCScheme   `json:"openIdConnectSecurityScheme,omitempty"`
	MTLS   *v10MTLSScheme   `json:"mtlsSecurityScheme,omitempty"`
}

type v10APIKeyScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

type v10HTTPScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

type v10OAuth2Scheme struct {
	Description string         `json:"description,omitempty"`
	Flows       wireOAuthFlows `json:"flows"`
}

type v10OIDCScheme struct {
	Description      string `json:"description,omitempty"`
	OpenIDConnectURL string `json:"openIdConnectUrl"`
}

type v10MTLSScheme struct {
	Description string `json:"description,omitempty"`
}

// hybridScheme carries both the v0.3 flat fields and the v1.0 one-of member,
// so each generation of client finds the shape it knows. Parsing reads every
// dialect's schemes through it.
type hybridScheme struct {
	v03Scheme
	v10Scheme
}

// v10StringList is the v1.0 StringList wrapper of a scope list.
type v10StringList struct {
	List []string `json:"list"`
}

// v10SecurityRequirement is one alternative of v1.0 securityRequirements.
type v10SecurityRequirement struct {
	Schemes map[string]v10StringList `json:"schemes"`
}

// v10Interface is a v1.0 AgentInterface.
type v10Interface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
	Tenant          string `json:"tenant,omitempty"`
}

// v03Interface is a v0.2.4+/v0.3 AgentInterface.
type v03Interface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type v10Capabilities struct {
	Streaming         bool            `json:"streaming"`
	PushNotifications bool            `json:"pushNotifications"`
	Extensions        []wireExtension `json:"extensions,omitempty"`
	ExtendedAgentCard bool            `json:"extendedAgentCard"`
}

type v03Capabilities struct {
	Streaming              bool            `json:"streaming"`
	PushNotifications      bool            `json:"pushNotifications"`
	StateTransitionHistory bool            `json:"stateTransitionHistory"`
	Extensions             []wireExtension `json:"extensions,omitempty"`
}

type v01Capabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

// hybridCapabilities is the union of the v0.3 and v1.0 capability fields.
type hybridCapabilities struct {
	Streaming              bool            `json:"streaming"`
	PushNotifications      bool            `json:"pushNotifications"`
	StateTransitionHistory bool            `json:"stateTransitionHistory"`
	Extensions             []wireExtension `json:"extensions,omitempty"`
	ExtendedAgentCard      bool            `json:"extendedAgentCard"`
}

// v10Card is the v1.0 AgentCard (proto field order).
type v10Card struct {
	Name                 string                   `json:"name"`
	Description          string                   `json:"description"`
	SupportedInterfaces  []v10Interface           `json:"supportedInterfaces"`
	Provider             *wireProvider            `json:"provider,omitempty"`
	Version              string                   `json:"version"`
	DocumentationURL     string                   `json:"documentationUrl,omitempty"`
	Capabilities         v10Capabilities          `json:"capabilities"`
	SecuritySchemes      map[string]v10Scheme     `json:"securitySchemes,omitempty"`
	SecurityRequirements []v10SecurityRequirement `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                 `json:"defaultInputModes"`
	DefaultOutputModes   []string                 `json:"defaultOutputModes"`
	Skills               []wireSkill              `json:"skills"`
	IconURL              string                   `json:"iconUrl,omitempty"`
}

// v03Card is the v0.3.0 AgentCard, also used for v0.2.6 (which has a subset
// of its fields; the renderer leaves the rest empty).
type v03Card struct {
	ProtocolVersion                   string                `json:"protocolVersion"`
	Name                              string                `json:"name"`
	Description                       string                `json:"description"`
	URL                               string                `json:"url"`
	PreferredTransport                string                `json:"preferredTransport,omitempty"`
	AdditionalInterfaces              []v03Interface        `json:"additionalInterfaces,omitempty"`
	IconURL                           string                `json:"iconUrl,omitempty"`
	Provider                          *wireProvider         `json:"provider,omitempty"`
	Version                           string                `json:"version"`
	DocumentationURL                  string                `json:"documentationUrl,omitempty"`
	Capabilities                      v03Capabilities       `json:"capabilities"`
	SecuritySchemes                   map[string]v03Scheme  `json:"securitySchemes,omitempty"`
	Security                          []map[string][]string `json:"security,omitempty"`
	DefaultInputModes                 []string              `json:"defaultInputModes"`
	DefaultOutputModes                []string              `json:"defaultOutputModes"`
	SupportsAuthenticatedExtendedCard bool                  `json:"supportsAuthenticatedExtendedCard,omitempty"`
	Skills                            []wireSkill           `json:"skills"`
}

// v01Auth is the v0.1 AgentAuthentication.
type v01Auth struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// v01Card is the v0.1.0 AgentCard.
type v01Card struct {
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	URL                string          `json:"url"`
	Provider           *wireProvider   `json:"provider,omitempty"`
	Version            string          `json:"version"`
	DocumentationURL   string          `json:"documentationUrl,omitempty"`
	Capabilities       v01Capabilities `json:"capabilities"`
	Authentication     *v01Auth        `json:"authentication,omitempty"`
	DefaultInputModes  []string        `json:"defaultInputModes"`
	DefaultOutputModes []string        `json:"defaultOutputModes"`
	Skills             []wireSkill     `json:"skills"`
}

// hybridCard carries the v1.0 card plus the v0.3 fields v1.0 removed or
// renamed.
type hybridCard struct {
	ProtocolVersion                   string                   `json:"protocolVersion"`
	Name                              string                   `json:"name"`
	Description                       string                   `json:"description"`
	SupportedInterfaces               []v10Interface           `json:"supportedInterfaces"`
	URL                               string                   `json:"url"`
	PreferredTransport                string                   `json:"preferredTransport"`
	AdditionalInterfaces              []v03Interface           `json:"additionalInterfaces,omitempty"`
	Provider                          *wireProvider            `json:"provider,omitempty"`
	Version                           string                   `json:"version"`
	DocumentationURL                  string                   `json:"documentationUrl,omitempty"`
	Capabilities                      hybridCapabilities       `json:"capabilities"`
	SecuritySchemes                   map[string]hybridScheme  `json:"securitySchemes,omitempty"`
	SecurityRequirements              []v10SecurityRequirement `json:"securityRequirements,omitempty"`
	Security                          []map[string][]string    `json:"security,omitempty"`
	DefaultInputModes                 []string                 `json:"defaultInputModes"`
	DefaultOutputModes                []string                 `json:"defaultOutputModes"`
	SupportsAuthenticatedExtendedCard bool                     `json:"supportsAuthenticatedExtendedCard,omitempty"`
	Skills                            []wireSkill              `json:"skills"`
	IconURL                           string                   `json:"iconUrl,omitempty"`
}
