// Package credentials checks a request's credentials against the security
// schemes an Agent Card declares, with the fixed test credentials an
// a2amock agent accepts, and words the refusal as the spec's
// unauthenticated (401) or permission-denied (403) error.
//
// It checks; it does not decide when a check applies (the server does:
// agents that enforce authentication, and the auth-required flow).
package credentials

import (
	"net/http"
	"sort"
	"strings"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/wire"
)

// The fixed test credentials an agent that enforces authentication accepts
// for the schemes its card declares. OAuth2 and OpenID Connect schemes are
// declared only: no token endpoint runs, and TestBearerToken stands for the
// token a client would have obtained.
const (
	// TestAPIKey is the valid value of every apiKey scheme (header, query
	// or cookie, under the scheme's name).
	TestAPIKey = "a2amock-test-key"
	// TestBearerToken is the valid token of http bearer, oauth2 and
	// openIdConnect schemes.
	TestBearerToken = "a2amock-test-token"
	// TestBasicUser and TestBasicPassword are the valid http basic
	// credentials.
	TestBasicUser     = "a2amock"
	TestBasicPassword = "a2amock-test-password"
	// TestForbiddenToken is a credential the agent recognises but does not
	// authorise (bearer token, API key, or basic password): it gets 403.
	TestForbiddenToken = "a2amock-forbidden-token"
)

type credResult int

const (
	credMissing credResult = iota
	credWrong
	credForbidden
	credValid
)

// Verify checks r against card (see authenticate) and returns nil when a
// valid credential was presented, else the error to answer with; why, when
// not empty, says why credentials were needed.
func Verify(card *cards.Card, r *http.Request, why string) *wire.Error {
	if res := authenticate(card, r); res != credValid {
		return authError(res, why)
	}
	return nil
}

// authError builds the error; its code alone gives REST its status (401
// UNAUTHENTICATED, 403 PERMISSION_DENIED), and JSON-RPC answers with the
// same HTTP status (see rpcAuthError).
func authError(res credResult, why string) *wire.Error {
	if res == credForbidden {
		msg := "the credentials are valid but not allowed to use this agent"
		if why != "" {
			msg = why + ": " + msg
		}
		return wire.Errorf(wire.CodeUnauthorized, "%s", msg)
	}
	msg := "authentication required: present the credentials the agent card's securitySchemes declare"
	if res == credWrong {
		msg = "authentication failed: the credentials presented are not valid"
	}
	if why != "" {
		msg = why + "; " + msg
	}
	return wire.Errorf(wire.CodeUnauthenticated, "%s", msg)
}

// authenticate checks r against the card's requirements: any alternative
// of card.Security whose schemes are all satisfied, or, with no
// requirements listed, any declared scheme. A card that declares no scheme
// accepts any Authorization header (the auth-required flow still needs
// one).
func authenticate(card *cards.Card, r *http.Request) credResult {
	if len(card.SecuritySchemes) == 0 {
		if r.Header.Get("Authorization") == "" {
			return credMissing
		}
		if strings.Contains(r.Header.Get("Authorization"), TestForbiddenToken) {
			return credForbidden
		}
		return credValid
	}
	alts := card.Security
	if len(alts) == 0 {
		names := make([]string, 0, len(card.SecuritySchemes))
		for n := range card.SecuritySchemes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			alts = append(alts, map[string][]string{n: nil})
		}
	}
	best := credMissing
	for _, alt := range alts {
		res := credValid
		for name := range alt {
			sc, ok := card.SecuritySchemes[name]
			if !ok {
				res = min(res, credMissing)
				continue
			}
			res = min(res, checkScheme(sc, r))
		}
		if res == credValid {
			return credValid
		}
		best = max(best, res)
	}
	return best
}

func eq(a, b string) bool { return httpserve.SameSecret(a, b) }

func secret(got, valid string) credResult {
	switch {
	case got == "":
		return credMissing
	case eq(got, valid):
		return credValid
	case eq(got, TestForbiddenToken):
		return credForbidden
	}
	return credWrong
}

func checkScheme(sc cards.SecurityScheme, r *http.Request) credResult {
	switch sc.Type {
	case cards.SchemeAPIKey:
		var got string
		switch strings.ToLower(sc.In) {
		case "query":
			got = r.URL.Query().Get(sc.Name)
		case "cookie":
			if c, err := r.Cookie(sc.Name); err == nil {
				got = c.Value
			}
		default:
			got = r.Header.Get(sc.Name)
		}
		return secret(got, TestAPIKey)
	case cards.SchemeHTTP:
		if strings.EqualFold(sc.Scheme, "basic") {
			user, pass, ok := r.BasicAuth()
			if !ok {
				return credMissing
			}
			if res := secret(pass, TestBasicPassword); res != credValid || eq(user, TestBasicUser) {
				return res
			}
			return credWrong
		}
		return bearer(r)
	case cards.SchemeMutualTLS:
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			return credValid
		}
		return credMissing
	}
	// oauth2 and openIdConnect: a bearer token, the fixed test one.
	return bearer(r)
}

func bearer(r *http.Request) credResult {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		if h == "" {
			return credMissing
		}
		return credWrong
	}
	return secret(strings.TrimSpace(tok), TestBearerToken)
}
