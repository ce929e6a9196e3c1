package testkit

import (
	"testing"

	"github.com/a2amock/a2amock/testkit/remote"
)

// The shared-server client lives in package remote; these names are
// testkit's way in to it.
type (
	// Remote is a test's own set of agents on a shared a2amock server.
	Remote = remote.Remote
	// RemoteAgent is an agent Connect or AddAgent created.
	RemoteAgent = remote.RemoteAgent
	// AgentSpec describes an agent created on a shared server.
	AgentSpec = remote.AgentSpec
)

// Connect gives the test its own agents on the running a2amock server at
// baseURL, e.g. os.Getenv("A2AMOCK_URL"): a default agent named "agent" at
// once, more with AddAgent; all are removed at cleanup.
func Connect(t testing.TB, baseURL string) *Remote { return remote.Connect(t, baseURL) }
