package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// TestControlAPIRefusesCrossSite: a web page on any origin could POST
// /_a2amock/reset through the user's browser (a simple request needs no
// preflight, and the browser's connection is loopback). State-changing
// control calls from another origin or site, or addressed to a name that is
// not loopback (DNS rebinding), are refused; reads and same-origin calls
// still work.
func TestControlAPIRefusesCrossSite(t *testing.T) {
	t.Parallel()
	open, err := server.New(server.Config{Seed: 3})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, open.Close()) })
	tokened, err := server.New(server.Config{Seed: 3, ControlToken: "s3cret"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tokened.Close()) })

	for _, tc := range []struct {
		name, method, path, host string
		hdr                      map[string]string
		tokened                  bool
		status                   int
	}{
		{"reset from another origin", "POST", "/_a2amock/reset", "127.0.0.1:8080", map[string]string{"Origin": "https://evil.example"}, false, 403},
		{"reset from a null origin", "POST", "/_a2amock/reset", "127.0.0.1:8080", map[string]string{"Origin": "null"}, false, 403},
		{"reset cross-site fetch", "POST", "/_a2amock/reset", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site"}, false, 403},
		{"behaviors from another origin", "PUT", "/_a2amock/behaviors", "127.0.0.1:8080", map[string]string{"Origin": "http://localhost:3000", "Content-Type": "application/json"}, false, 403},
		{"delete behaviors cross-site", "DELETE", "/_a2amock/behaviors", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "same-site"}, false, 403},
		{"reset by a rebound DNS name", "POST", "/_a2amock/reset", "evil.example:8080", map[string]string{"Origin": "http://evil.example:8080"}, false, 403},
		{"reset same origin", "POST", "/_a2amock/reset", "127.0.0.1:8080", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, false, 204},
		{"reset from curl", "POST", "/_a2amock/reset", "localhost:8080", nil, false, 204},
		{"journal read from another origin", "GET", "/_a2amock/journal", "127.0.0.1:8080", map[string]string{"Origin": "https://evil.example"}, false, 200},
		{"token: reset from another origin", "POST", "/_a2amock/reset", "mock.internal:8080", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer s3cret"}, true, 403},
		{"token: reset by any host name", "POST", "/_a2amock/reset", "mock.internal:8080", map[string]string{"Authorization": "Bearer s3cret"}, true, 204},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		req.Host = tc.host
		req.RemoteAddr = "127.0.0.1:5555"
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		srv := open
		if tc.tokened {
			srv = tokened
		}
		srv.Handler().ServeHTTP(rec, req)
		assert.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body)
	}
}

// TestControlAPIFrontSecret: a server behind a front answers only the
// control calls the front vouches for, even from loopback (every request
// the front proxies comes from loopback).
func TestControlAPIFrontSecret(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{Seed: 3, ControlFrontSecret: "front-key"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	for _, tc := range []struct {
		name, secret string
		status       int
	}{
		{"not vouched for", "", http.StatusForbidden},
		{"wrong secret", "front-kez", http.StatusForbidden},
		{"a prefix of the secret", "front", http.StatusForbidden},
		{"vouched for", "front-key", http.StatusOK},
	} {
		req := httptest.NewRequest("GET", "http://127.0.0.1:1/_a2amock/journal", nil)
		req.RemoteAddr = "127.0.0.1:5555"
		if tc.secret != "" {
			req.Header.Set(server.ControlFrontHeader, tc.secret)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		assert.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body)
	}
}
