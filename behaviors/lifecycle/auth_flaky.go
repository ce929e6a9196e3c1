package lifecycle

import (
	"fmt"
	"strings"
	"sync"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var authFlakySpec = core.Spec{
	Name: "auth-flaky",
	Doc: `Reproduces identity providers and gateways that refuse a valid token now
and then (clock skew, a key rotation racing the token, a cold cache): the
first 'times' requests that carry credentials are refused with
unauthenticated (-31401, HTTP 401 on either binding), whatever the
credentials; later ones go through. Tests that a client retries a refused
valid token a bounded number of times (after refreshing it) instead of
giving up at once or retrying for ever.`,
	New: func() core.Behavior { return &AuthFlaky{Times: 2} },
}

// AuthFlaky refuses the first requests that carry credentials.
type AuthFlaky struct {
	Times int `param:"times" doc:"how many requests with credentials are refused"`

	mu      sync.Mutex
	refused int
}

// Validate implements Validator.
func (b *AuthFlaky) Validate() error {
	if b.Times < 0 {
		return fmt.Errorf("times must not be negative")
	}
	return nil
}

// Reset implements Resetter.
func (b *AuthFlaky) Reset() {
	b.mu.Lock()
	b.refused = 0
	b.mu.Unlock()
}

// Apply implements Behavior.
func (b *AuthFlaky) Apply(x *core.Exchange) {
	if x.Op == core.OpCard || x.HTTP == nil || !hasCredentials(x) {
		return
	}
	b.mu.Lock()
	refuse := b.refused < b.Times
	if refuse {
		b.refused++
	}
	n := b.refused
	b.mu.Unlock()
	if !refuse {
		return
	}
	e := wire.Errorf(wire.CodeUnauthenticated, "authentication failed: the token was refused (auth-flaky, %d of %d)", n, b.Times)
	if x.Binding == wire.BindingJSONRPC {
		// REST derives 401 from the code; JSON-RPC needs it said.
		e = e.WithHTTPStatus(401) // Unauthorized
	}
	x.RejectWith(e)
}

// hasCredentials reports whether the request presents any credential the
// card's schemes locate, or an Authorization header.
func hasCredentials(x *core.Exchange) bool {
	r := x.HTTP
	if r.Header("Authorization") != "" {
		return true
	}
	if x.Card == nil {
		return false
	}
	for _, sc := range x.Card.SecuritySchemes {
		if sc.Type != "apiKey" || sc.Name == "" {
			continue
		}
		switch strings.ToLower(sc.In) {
		case "query":
			if r.Query(sc.Name) != "" {
				return true
			}
		case "cookie":
			if r.Cookie(sc.Name) != "" {
				return true
			}
		default:
			if r.Header(sc.Name) != "" {
				return true
			}
		}
	}
	return false
}
