package cards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2amock/a2amock/cards/internal/cardjson"
	"github.com/a2amock/a2amock/wire"
)

// anyCard is the union of every dialect's card fields, so one decode reads
// any of them (including a hybrid card).
type anyCard struct {
	cardjson.HybridCard
	Authentication *cardjson.V01Auth `json:"authentication"`
}

// Fields that first appeared in v0.2.x cards; any of them in a card without
// protocolVersion marks a pre-0.2.5 v0.2 card rather than a v0.1 card.
var v02OnlyKeys = []string{
	"securitySchemes", "security", "supportsAuthenticatedExtendedCard",
	"iconUrl", "preferredTransport", "additionalInterfaces",
}

// Parse reads an Agent Card of any dialect into the model, setting Dialect to
// the dialect detected: supportedInterfaces means v1.0 (a hybrid card is read
// as v1.0); otherwise protocolVersion 0.3.x or 0.2.x decides; a card without
// protocolVersion is v0.2 when it has fields only v0.2 had, else v0.1.
//
// Skill durations come back from the duration extension, which is not kept
// among Capabilities.Extensions. Errors name the missing or malformed field;
// all missing required fields are reported together.
func Parse(b []byte) (*Card, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("parse card: %w", describeJSONError(err))
	}
	if top == nil {
		return nil, errors.New("parse card: expected a JSON object, got null")
	}
	d, err := detectDialect(top)
	if err != nil {
		return nil, fmt.Errorf("parse card: %w", err)
	}
	if err := checkRequired(d, top); err != nil {
		return nil, fmt.Errorf("parse card (%s): %w", d, err)
	}
	var w anyCard
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("parse card (%s): %w", d, describeJSONError(err))
	}
	c, err := fromWire(d, &w)
	if err != nil {
		return nil, fmt.Errorf("parse card (%s): %w", d, err)
	}
	return c, nil
}

// newestOfShape returns the newest dialect whose card has shape.
func newestOfShape(shape wire.CardShape) wire.Dialect {
	for _, d := range wire.Descriptors() {
		if d.CardShape == shape {
			return d.Dialect
		}
	}
	return ""
}

func detectDialect(top map[string]json.RawMessage) (wire.Dialect, error) {
	if present(top, "supportedInterfaces") {
		return newestOfShape(wire.CardShapeV10), nil
	}
	if present(top, "protocolVersion") {
		var pv string
		if err := json.Unmarshal(top["protocolVersion"], &pv); err != nil {
			return "", errors.New("protocolVersion: must be a string")
		}
		// A v1.0 card has no top-level protocolVersion; one that says 1.0
		// is read as v1.0 so the missing supportedInterfaces gets named.
		if d, ok := wire.DialectOfVersion(pv); ok {
			return d, nil
		}
		return "", fmt.Errorf("protocolVersion: unsupported version %q", pv)
	}
	if present(top, "authentication") {
		return wire.V01, nil
	}
	for _, k := range v02OnlyKeys {
		if present(top, k) {
			return wire.V02, nil
		}
	}
	var caps struct {
		Extensions json.RawMessage `json:"extensions"`
	}
	if present(top, "capabilities") && json.Unmarshal(top["capabilities"], &caps) == nil && caps.Extensions != nil {
		return wire.V02, nil
	}
	return wire.V01, nil
}

// checkRequired reports every required field the dialect's schema (or, for
// v1.0, the proto's REQUIRED markers) asks for and the card lacks.
func checkRequired(d wire.Dialect, top map[string]json.RawMessage) error {
	var keys, skillKeys []string
	switch wire.Describe(d).CardShape {
	case wire.CardShapeV10:
		keys = []string{"name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"}
		skillKeys = []string{"id", "name", "description", "tags"}
	case wire.CardShapeV03:
		keys = []string{"name", "description", "url", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"}
		skillKeys = []string{"id", "name", "description", "tags"}
	default:
		keys = []string{"name", "url", "version", "capabilities", "skills"}
		skillKeys = []string{"id", "name"}
	}
	var errs []error
	for _, k := range keys {
		if !present(top, k) {
			errs = append(errs, fmt.Errorf("%s: required field missing", k))
		}
	}
	if present(top, "skills") {
		var skills []map[string]json.RawMessage
		if err := json.Unmarshal(top["skills"], &skills); err != nil {
			errs = append(errs, errors.New("skills: must be an array of objects"))
		}
		for i, s := range skills {
			for _, k := range skillKeys {
				if !present(s, k) {
					errs = append(errs, fmt.Errorf("skills[%d].%s: required field missing", i, k))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// present reports whether key is in obj with a non-null value.
func present(obj map[string]json.RawMessage, key string) bool {
	v, ok := obj[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// describeJSONError turns a type mismatch into a message that names the field
// by its JSON path.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: expected %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %w", se.Offset, err)
	}
	return err
}

func fromWire(d wire.Dialect, w *anyCard) (*Card, error) {
	c := &Card{
		Name:               w.Name,
		Description:        w.Description,
		Version:            w.Version,
		Dialect:            d,
		DocumentationURL:   w.DocumentationURL,
		DefaultInputModes:  nilIfEmpty(w.DefaultInputModes),
		DefaultOutputModes: nilIfEmpty(w.DefaultOutputModes),
		Capabilities: Capabilities{
			Streaming:         w.Capabilities.Streaming,
			PushNotifications: w.Capabilities.PushNotifications,
		},
	}
	shape := wire.Describe(d).CardShape
	if shape != wire.CardShapeV01 {
		c.IconURL = w.IconURL
		c.Capabilities.ExtendedAgentCard = w.Capabilities.ExtendedAgentCard || w.SupportsAuthenticatedExtendedCard
	}
	if wire.Describe(d).CardStateTransitionHistory {
		c.Capabilities.StateTransitionHistory = w.Capabilities.StateTransitionHistory
	}
	if w.Provider != nil {
		c.Provider = &Provider{Organization: w.Provider.Organization, URL: w.Provider.URL}
	}
	for _, s := range w.Skills {
		c.Skills = append(c.Skills, Skill{
			ID:          s.ID,
			Name:        s.Name,
			Description: s.Description,
			Tags:        nilIfEmpty(s.Tags),
			Examples:    nilIfEmpty(s.Examples),
			InputModes:  nilIfEmpty(s.InputModes),
			OutputModes: nilIfEmpty(s.OutputModes),
		})
	}

	var errs []error
	if shape != wire.CardShapeV01 {
		errs = append(errs, parseExtensions(c, w.Capabilities.Extensions)...)
	}
	var err error
	switch shape {
	case wire.CardShapeV10:
		c.Interfaces, err = v10InterfacesFromWire(w.SupportedInterfaces)
		errs = append(errs, err)
		c.SecuritySchemes, err = schemesFromWire(w.SecuritySchemes)
		errs = append(errs, err)
		for _, req := range w.SecurityRequirements {
			alt := make(map[string][]string, len(req.Schemes))
			for name, l := range req.Schemes {
				alt[name] = nilIfEmpty(l.List)
			}
			c.Security = append(c.Security, alt)
		}
	case wire.CardShapeV03:
		c.Interfaces = v03InterfacesFromWire(d, w)
		c.SecuritySchemes, err = schemesFromWire(w.SecuritySchemes)
		errs = append(errs, err)
		for _, req := range w.Security {
			alt := make(map[string][]string, len(req))
			for name, scopes := range req {
				alt[name] = nilIfEmpty(scopes)
			}
			c.Security = append(c.Security, alt)
		}
	default:
		c.Interfaces = []Interface{{URL: w.URL, Binding: wire.BindingJSONRPC, Version: d}}
		if w.Authentication != nil {
			c.SecuritySchemes, c.Security = v01SecurityFromWire(w.Authentication)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// parseExtensions fills c.Capabilities.Extensions and, from the duration
// extension, the skills' EstimatedDuration.
func parseExtensions(c *Card, exts []cardjson.Extension) []error {
	var errs []error
	for i, e := range exts {
		if e.URI == "" {
			errs = append(errs, fmt.Errorf("capabilities.extensions[%d].uri: required field missing", i))
			continue
		}
		if e.URI != DurationExtensionURI {
			c.Capabilities.Extensions = append(c.Capabilities.Extensions, Extension(e))
			continue
		}
		for _, id := range sortedKeys(e.Params) {
			field := fmt.Sprintf("capabilities.extensions[%d].params.%s", i, id)
			str, ok := e.Params[id].(string)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: expected a duration string, got %T", field, e.Params[id]))
				continue
			}
			dur, err := time.ParseDuration(str)
			if err != nil || dur < 0 {
				errs = append(errs, fmt.Errorf("%s: invalid duration %q", field, str))
				continue
			}
			// A duration for a skill the card does not list is ignored, as
			// a client ignores what it does not understand.
			if s := c.Skill(id); s != nil {
				s.EstimatedDuration = dur
			}
		}
	}
	return errs
}

func v10InterfacesFromWire(ins []cardjson.V10Interface) ([]Interface, error) {
	if len(ins) == 0 {
		return nil, errors.New("supportedInterfaces: at least one interface is required")
	}
	var errs []error
	out := make([]Interface, 0, len(ins))
	for i, in := range ins {
		for _, f := range [...]struct{ name, value string }{
			{"url", in.URL}, {"protocolBinding", in.ProtocolBinding}, {"protocolVersion", in.ProtocolVersion},
		} {
			if f.value == "" {
				errs = append(errs, fmt.Errorf("supportedInterfaces[%d].%s: required field missing", i, f.name))
			}
		}
		out = append(out, Interface{
			URL:     in.URL,
			Binding: wire.Binding(in.ProtocolBinding),
			Version: wire.Dialect(majorMinor(in.ProtocolVersion)),
			Tenant:  in.Tenant,
		})
	}
	return out, errors.Join(errs...)
}

// v03InterfacesFromWire lists url/preferredTransport first, then the
// additional interfaces without the one entry that repeats the main one (the
// spec asks agents to include it there).
func v03InterfacesFromWire(d wire.Dialect, w *anyCard) []Interface {
	binding := wire.Binding(w.PreferredTransport)
	if binding == "" {
		binding = wire.BindingJSONRPC // the schema's default
	}
	out := []Interface{{URL: w.URL, Binding: binding, Version: d}}
	skipped := false
	for _, in := range w.AdditionalInterfaces {
		if !skipped && in.URL == w.URL && wire.Binding(in.Transport) == binding {
			skipped = true
			continue
		}
		out = append(out, Interface{URL: in.URL, Binding: wire.Binding(in.Transport), Version: d})
	}
	return out
}

func schemesFromWire(in map[string]cardjson.HybridScheme) (map[string]SecurityScheme, error) {
	if len(in) == 0 {
		return nil, nil
	}
	var errs []error
	out := make(map[string]SecurityScheme, len(in))
	for _, name := range sortedKeys(in) {
		s, err := schemeFromWire(in[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("securitySchemes.%s: %w", name, err))
			continue
		}
		out[name] = s
	}
	return out, errors.Join(errs...)
}

// schemeFromWire reads the v1.0 one-of member when there is one and the v0.x
// `type` fields otherwise; a hybrid scheme has both and they agree.
func schemeFromWire(h cardjson.HybridScheme) (SecurityScheme, error) {
	v := h.V10Scheme
	members := 0
	var s SecurityScheme
	if v.APIKey != nil {
		members++
		s = SecurityScheme{Type: SchemeAPIKey, Description: v.APIKey.Description, In: v.APIKey.Location, Name: v.APIKey.Name}
	}
	if v.HTTP != nil {
		members++
		s = SecurityScheme{Type: SchemeHTTP, Description: v.HTTP.Description, Scheme: v.HTTP.Scheme, BearerFormat: v.HTTP.BearerFormat}
	}
	if v.OAuth2 != nil {
		members++
		s = SecurityScheme{Type: SchemeOAuth2, Description: v.OAuth2.Description}
		s.TokenURL, s.Scopes = flowFromWire(&v.OAuth2.Flows)
	}
	if v.OIDC != nil {
		members++
		s = SecurityScheme{Type: SchemeOpenIDConnect, Description: v.OIDC.Description, OpenIDConnectURL: v.OIDC.OpenIDConnectURL}
	}
	if v.MTLS != nil {
		members++
		s = SecurityScheme{Type: SchemeMutualTLS, Description: v.MTLS.Description}
	}
	switch {
	case members > 1:
		return SecurityScheme{}, errors.New("more than one scheme member set in a one-of")
	case members == 1:
		return s, nil
	}

	o := h.V03Scheme
	s = SecurityScheme{Type: o.Type, Description: o.Description}
	switch o.Type {
	case SchemeAPIKey:
		s.In, s.Name = o.In, o.Name
	case SchemeHTTP:
		s.Scheme, s.BearerFormat = o.Scheme, o.BearerFormat
	case SchemeOAuth2:
		if o.Flows == nil {
			return SecurityScheme{}, errors.New("flows: required field missing")
		}
		s.TokenURL, s.Scopes = flowFromWire(o.Flows)
	case SchemeOpenIDConnect:
		s.OpenIDConnectURL = o.OpenIDConnectURL
	case SchemeMutualTLS:
	case "":
		return SecurityScheme{}, errors.New("type: required field missing (and no v1.0 scheme member)")
	default:
		return SecurityScheme{}, fmt.Errorf("type: unknown security scheme type %q", o.Type)
	}
	return s, nil
}

// flowFromWire takes the token URL and scopes of the client-credentials flow,
// or of the first other flow that has them; the model keeps only one flow.
func flowFromWire(f *cardjson.OAuthFlows) (string, map[string]string) {
	for _, fl := range []*cardjson.OAuthFlow{f.ClientCredentials, f.AuthorizationCode, f.DeviceCode, f.Password, f.Implicit} {
		if fl != nil && fl.TokenURL != "" {
			scopes := fl.Scopes
			if len(scopes) == 0 {
				scopes = nil
			}
			return fl.TokenURL, scopes
		}
	}
	return "", nil
}

// v01SecurityFromWire turns v0.1 scheme names into schemes named after them
// (lowercased), each its own alternative. Only the type survives; v0.1 cards
// said nothing more.
func v01SecurityFromWire(a *cardjson.V01Auth) (map[string]SecurityScheme, []map[string][]string) {
	if len(a.Schemes) == 0 {
		return nil, nil
	}
	schemes := map[string]SecurityScheme{}
	var sec []map[string][]string
	for _, raw := range a.Schemes {
		name := strings.ToLower(raw)
		if name == "" {
			continue
		}
		var s SecurityScheme
		switch name {
		case "apikey":
			s = SecurityScheme{Type: SchemeAPIKey}
		case "oauth2":
			s = SecurityScheme{Type: SchemeOAuth2}
		case "openidconnect":
			s = SecurityScheme{Type: SchemeOpenIDConnect}
		case "mutualtls", "mtls":
			s = SecurityScheme{Type: SchemeMutualTLS}
		default:
			s = SecurityScheme{Type: SchemeHTTP, Scheme: name}
		}
		if _, dup := schemes[name]; !dup {
			schemes[name] = s
			sec = append(sec, map[string][]string{name: nil})
		}
	}
	return schemes, sec
}

// majorMinor cuts a version such as "0.3.0" to "0.3".
func majorMinor(v string) string {
	if i := strings.IndexByte(v, '.'); i >= 0 {
		if j := strings.IndexByte(v[i+1:], '.'); j >= 0 {
			return v[:i+1+j]
		}
	}
	return v
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
