package testkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// A StartTLS mock serves HTTPS, its cards declare https URLs, Mock.Client
// trusts it and a client that does not is refused.
func TestStartTLS(t *testing.T) {
	t.Parallel()
	mock := testkit.StartTLS(t, testkit.WithAgents("secure"), testkit.WithStepDelay(-1))
	require.True(t, strings.HasPrefix(mock.URL, "https://127.0.0.1:"), mock.URL)
	require.NotNil(t, mock.CertPool())

	resp, err := mock.Client().Get(mock.CardURL("secure"))
	require.NoError(t, err)
	var card struct {
		SupportedInterfaces []struct {
			URL string `json:"url"`
		} `json:"supportedInterfaces"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	require.NoError(t, resp.Body.Close())
	require.NotEmpty(t, card.SupportedInterfaces)
	for _, i := range card.SupportedInterfaces {
		assert.True(t, strings.HasPrefix(i.URL, "https://"), "the card declares https: %s", i.URL)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, _, err := testkit.DiscoverClient(ctx, mock.CardURL("secure"), testkit.WithHTTPClient(mock.Client()))
	require.NoError(t, err)
	task, err := cl.Send(ctx, &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, reconcile.SendOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, task.ID)

	untrusting := &http.Client{Transport: &http.Transport{}}
	defer untrusting.CloseIdleConnections()
	_, err = untrusting.Get(mock.CardURL("secure"))
	require.Error(t, err, "the certificate is trusted only through Mock.Client or CertPool")
}

// Mock.Client of a plain mock reaches it, and CertPool is nil.
func TestMockClientPlain(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t)
	assert.Nil(t, mock.CertPool())
	resp, err := mock.Client().Get(mock.CardURL(""))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
