// Package cards models an Agent Card independently of any A2A version,
// generates realistic cards from a seed, renders a card in each dialect's
// shape and parses a card of any dialect back into the model.
package cards

import (
	"strings"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// Card is an Agent Card in canonical form. Interfaces are normally left empty
// and filled in by the server at render time with its real addresses.
type Card struct {
	Name        string
	Description string
	Version     string
	// Dialect is the A2A version whose card shape is rendered (and whose
	// protocolVersion the interfaces declare).
	Dialect          wire.Dialect
	Provider         *Provider
	DocumentationURL string
	IconURL          string
	Capabilities     Capabilities
	// DefaultInputModes and DefaultOutputModes are media types.
	DefaultInputModes  []string
	DefaultOutputModes []string
	Skills             []Skill
	SecuritySchemes    map[string]SecurityScheme
	// Security lists alternative requirements: scheme name → scopes.
	Security   []map[string][]string
	Interfaces []Interface
}

// Provider is the organisation behind the agent.
type Provider struct {
	Organization string
	URL          string
}

// Capabilities are the optional protocol features the card declares.
type Capabilities struct {
	Streaming         bool
	PushNotifications bool
	// StateTransitionHistory exists in v0.2/v0.3 cards only; v1.0 dropped it.
	StateTransitionHistory bool
	ExtendedAgentCard      bool
	Extensions             []Extension
}

// Extension is a declared protocol extension.
type Extension struct {
	URI         string
	Description string
	Required    bool
	Params      map[string]any
}

// Skill is one thing the agent can do.
type Skill struct {
	ID          string
	Name        string
	Description string
	Tags        []string
	Examples    []string
	InputModes  []string
	OutputModes []string

	// NeedsInput makes the honest agent park a new task of this skill in
	// input-required until a follow-up message continues it.
	NeedsInput bool
	// InputPrompt is the status message of that input-required state.
	InputPrompt string
	// EstimatedDuration is the skill's declared duration, published through
	// the DurationExtension of the card (the spec has no field for it).
	EstimatedDuration time.Duration
}

// DurationExtensionURI names the card extension through which a2amock
// declares each skill's estimated duration (params: skill id → Go duration).
const DurationExtensionURI = "https://a2amock.dev/extensions/skill-duration/v1"

// SecurityScheme is one declared authentication scheme.
type SecurityScheme struct {
	// Type is apiKey, http, oauth2, openIdConnect or mutualTLS.
	Type        string
	Description string
	// In and Name locate an API key: header, query or cookie.
	In   string
	Name string
	// Scheme and BearerFormat describe an http scheme (bearer, basic).
	Scheme       string
	BearerFormat string
	// TokenURL and Scopes describe an OAuth2 client-credentials flow.
	TokenURL string
	Scopes   map[string]string
	// OpenIDConnectURL is the discovery URL of an OIDC scheme.
	OpenIDConnectURL string
}

// Interface is one endpoint the agent answers on.
type Interface struct {
	URL     string
	Binding wire.Binding
	Version wire.Dialect
	Tenant  string
}

// GRPCTarget returns the URL a GRPC interface declares for a server at
// origin ("http://127.0.0.1:8080" gives "127.0.0.1:8080"): gRPC clients
// dial host:port, with no scheme and no path.
func GRPCTarget(origin string) string {
	if _, hostPort, ok := strings.Cut(origin, "://"); ok {
		return hostPort
	}
	return origin
}

// Skill returns the skill with the given id, or nil.
func (c *Card) Skill(id string) *Skill {
	for i := range c.Skills {
		if c.Skills[i].ID == id {
			return &c.Skills[i]
		}
	}
	return nil
}

// SkillIDs lists the ids of the card's skills, in order.
func (c *Card) SkillIDs() []string {
	out := make([]string, 0, len(c.Skills))
	for _, sk := range c.Skills {
		out = append(out, sk.ID)
	}
	return out
}
