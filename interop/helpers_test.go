package interop

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
)

// TestMain fails the run if a test leaves goroutines behind, the mock's or a
// client's: both must end their streams when the test is done.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// startMock starts an in-process mock on a loopback port and stops it when
// the test ends.
func startMock(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	s, err := server.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// agentWith returns a one-agent config whose generated card is adjusted by
// edit, so a test can declare a capability or a skill that needs input.
func agentWith(name string, seed uint64, edit func(c *cards.Card)) server.AgentConfig {
	c := cards.Generate(name, seed)
	if edit != nil {
		edit(c)
	}
	return server.AgentConfig{Name: name, Card: c}
}

// inputSkill returns the id of the card's skill that parks in input-required,
// making the first skill one if the card has none.
func inputSkill(c *cards.Card) string {
	for _, s := range c.Skills {
		if s.NeedsInput {
			return s.ID
		}
	}
	c.Skills[0].NeedsInput = true
	return c.Skills[0].ID
}

// httpClient is the client handed to the SDKs. It has no overall timeout,
// since the SDK default (3 minutes) would cut long streams; tests bound each
// call with a context instead. Its idle connections are closed at the end so
// goleak sees no keep-alive goroutines.
func httpClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// testCtx is a context that ends with the test or after a generous bound,
// whichever comes first, so a hung stream fails the test instead of the run.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
