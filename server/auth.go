package server

import "github.com/a2amock/a2amock/server/internal/credentials"

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
