package cards

import (
	"errors"
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/wire"
)

// Security scheme types the model knows (the v0.3 `type` values).
const (
	SchemeAPIKey        = "apiKey"
	SchemeHTTP          = "http"
	SchemeOAuth2        = "oauth2"
	SchemeOpenIDConnect = "openIdConnect"
	SchemeMutualTLS     = "mutualTLS"
)

// Validate reports every problem with the card's content, joined with
// errors.Join; each names the offending field. It does not require
// interfaces, because a configured card normally gets them from the server
// just before rendering; ValidateForRender adds that check.
func (c *Card) Validate() error {
	if c == nil {
		return errors.New("card: nil")
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.Name == "" {
		bad("name", "required")
	}
	if c.Description == "" {
		bad("description", "required")
	}
	if c.Version == "" {
		bad("version", "required")
	}
	if c.Dialect != "" && !slices.Contains(wire.Dialects, c.Dialect) {
		bad("dialect", "unknown dialect %q", c.Dialect)
	}
	if c.Provider != nil {
		if c.Provider.Organization == "" {
			bad("provider.organization", "required")
		}
		if c.Provider.URL == "" {
			bad("provider.url", "required")
		}
	}
	if len(c.Skills) == 0 {
		bad("skills", "at least one skill is required")
	}
	seen := map[string]int{}
	for i, s := range c.Skills {
		p := fmt.Sprintf("skills[%d]", i)
		if s.ID == "" {
			bad(p+".id", "required")
		} else if j, dup := seen[s.ID]; dup {
			bad(p+".id", "duplicate id %q (also skills[%d])", s.ID, j)
		} else {
			seen[s.ID] = i
		}
		if s.Name == "" {
			bad(p+".name", "required")
		}
		if s.Description == "" {
			bad(p+".description", "required")
		}
		if len(s.Tags) == 0 {
			bad(p+".tags", "at least one tag is required")
		}
		if s.EstimatedDuration < 0 {
			bad(p+".estimatedDuration", "negative duration %s", s.EstimatedDuration)
		}
	}
	for _, name := range sortedKeys(c.SecuritySchemes) {
		errs = append(errs, c.SecuritySchemes[name].validate("securitySchemes."+name)...)
	}
	for i, alt := range c.Security {
		for _, name := range sortedKeys(alt) {
			if _, ok := c.SecuritySchemes[name]; !ok {
				bad(fmt.Sprintf("security[%d].%s", i, name), "names no declared security scheme")
			}
		}
	}
	for i, in := range c.Interfaces {
		p := fmt.Sprintf("interfaces[%d]", i)
		if in.URL == "" {
			bad(p+".url", "required")
		}
		if in.Binding == "" {
			bad(p+".binding", "required")
		}
	}
	return errors.Join(errs...)
}

// ValidateForRender is Validate plus what rendering needs: a known dialect and
// at least one interface (every dialect's card must name a URL: v1.0 through
// supportedInterfaces, the older ones through url).
func (c *Card) ValidateForRender() error {
	err := c.Validate()
	if c == nil {
		return err
	}
	var errs []error
	if c.Dialect == "" {
		errs = append(errs, errors.New("dialect: required"))
	}
	if len(c.Interfaces) == 0 {
		errs = append(errs, errors.New("interfaces: at least one interface is required to render a card"))
	}
	return errors.Join(append([]error{err}, errs...)...)
}

func (s SecurityScheme) validate(p string) []error {
	var errs []error
	bad := func(field, msg string) { errs = append(errs, fmt.Errorf("%s.%s: %s", p, field, msg)) }
	switch s.Type {
	case SchemeAPIKey:
		if !slices.Contains([]string{"header", "query", "cookie"}, s.In) {
			bad("in", fmt.Sprintf("must be header, query or cookie, not %q", s.In))
		}
		if s.Name == "" {
			bad("name", "required")
		}
	case SchemeHTTP:
		if s.Scheme == "" {
			bad("scheme", "required")
		}
	case SchemeOAuth2:
		if s.TokenURL == "" {
			bad("tokenUrl", "required")
		}
	case SchemeOpenIDConnect:
		if s.OpenIDConnectURL == "" {
			bad("openIdConnectUrl", "required")
		}
	case SchemeMutualTLS:
	default:
		bad("type", fmt.Sprintf("unknown security scheme type %q", s.Type))
	}
	return errs
}
