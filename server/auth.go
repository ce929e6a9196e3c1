package server

import (
	"net/http"

	"github.com/a2amock/a2amock/server/internal/credentials"
	"github.com/a2amock/a2amock/wire"
)

// The fixed test credentials an agent with AgentConfig.EnforceAuth accepts
// for the schemes its card declares (package credentials checks them).
// OAuth2 and OpenID Connect schemes are declared only: no token endpoint
// runs, and TestBearerToken stands for the token a client would have
// obtained.
const (
	// TestAPIKey is the valid value of every apiKey scheme (header, query
	// or cookie, under the scheme's name).
	TestAPIKey = credentials.TestAPIKey
	// TestBearerToken is the valid token of http bearer, oauth2 and
	// openIdConnect schemes.
	TestBearerToken = credentials.TestBearerToken
	// TestBasicUser and TestBasicPassword are the valid http basic
	// credentials.
	TestBasicUser     = credentials.TestBasicUser
	TestBasicPassword = credentials.TestBasicPassword
	// TestForbiddenToken is a credential the agent recognises but does not
	// authorise (bearer token, API key, or basic password): it gets 403.
	TestForbiddenToken = credentials.TestForbiddenToken
)

// checkAuth enforces the card's security requirements on a binding request
// when the agent enforces authentication, and the auth-required flow (a
// message continuing an auth-required task must carry credentials) always.
// The card endpoints never come here: they stay public.
func (s *Server) checkAuth(a *agent, r *http.Request, req *wire.Request) *wire.Error {
	enforce := a.index < len(s.cfg.Agents) && s.cfg.Agents[a.index].EnforceAuth
	if !enforce {
		if req != nil && req.Message != nil && req.Message.TaskID != "" && a.taskState(req.Message.TaskID) == wire.StateAuthRequired {
			return credentials.Verify(a.card, r, "task "+req.Message.TaskID+" is auth-required: continue it with credentials")
		}
		return nil
	}
	return credentials.Verify(a.card, r, "")
}

// taskState returns the state of task id, or "".
func (a *agent) taskState(id string) wire.TaskState { return a.eng.TaskState(id) }
