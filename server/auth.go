package server

import (
	"net/http"
	"sort"
	"strings"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/wire"
)

// The fixed test credentials an agent with AgentConfig.EnforceAuth accepts
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

// checkAuth enforces the card's security requirements on a binding request
// when the agent enforces authentication, and the auth-required flow (a
// message continuing an auth-required task must carry credentials) always.
// The card endpoints never come here: they stay public.
func (s *Server) checkAuth(a *agent, r *http.Request, req *wire.Request) *wire.Error {
	enforce := a.index < len(s.cfg.Agents) && s.cfg.Agents[a.index].EnforceAuth
	if !enforce {
		if req != nil && req.Message != nil && req.Message.TaskID != "" && a.taskState(req.Message.TaskID) == wire.StateAuthRequired {
			if res := authenticate(a.card, r); res != credValid {
				return authError(res, "task "+req.Message.TaskID+" is auth-required: continue it with credentials")
			}
		}
		return nil
	}
	if res := authenticate(a.card, r); res != credValid {
		return authError(res, "")
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

// taskState returns the state of task id, or "".
func (a *agent) taskState(id string) wire.TaskState { return a.eng.TaskState(id) }

// rpcAuthError is e for the JSON-RPC binding: the JSON-RPC error in the body,
// and 401 or 403 as the HTTP status, as a2a-go's server does.
func rpcAuthError(e *wire.Error) *wire.Error {
	status, _ := e.Status()
	c := *e
	return c.WithHTTPStatus(status)
}
