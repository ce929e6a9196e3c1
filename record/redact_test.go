package record

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordingRedactsCredentials: a recording kept query-string API keys,
// push tokens and credentials and webhook URL query strings, while the
// README suggests committing recordings. They are redacted as the journal
// leaves them out, unless KeepCredentials.
func TestRecordingRedactsCredentials(t *testing.T) {
	t.Parallel()
	// The upstream echoes the request body, as a push-config call does.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + string(b) + `}`))
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	secrets := []string{"key-in-query", "tok-secret", "cred-secret", "sig-in-webhook", "pw-in-userinfo"}
	body := `{"taskId":"t1","url":"http://bob:pw-in-userinfo@127.0.0.1:9/hook?sig=sig-in-webhook","token":"tok-secret",` +
		`"authentication":{"schemes":["Bearer"],"credentials":"cred-secret"},"note":"a <b> & c"}`

	for _, keep := range []bool{false, true} {
		p := NewProxy(u, ProxyOptions{KeepCredentials: keep})
		req := httptest.NewRequest(http.MethodPost, "/?api_key=key-in-query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Contains(t, w.Body.String(), "tok-secret", "the client still gets the upstream's answer unchanged")
		b, err := json.Marshal(p.Recording())
		require.NoError(t, err)
		for _, s := range secrets {
			if keep {
				assert.Contains(t, string(b), s, "--keep-credentials keeps %s", s)
			} else {
				assert.NotContains(t, string(b), s, "the recording keeps a credential")
			}
		}
		if !keep {
			rec := p.Recording()
			require.Len(t, rec.Exchanges, 1)
			x := rec.Exchanges[0]
			assert.Equal(t, "/?api_key=REDACTED", x.Path)
			assert.Contains(t, string(x.Request), `"url":"http://REDACTED@127.0.0.1:9/hook?sig=REDACTED"`)
			assert.Contains(t, string(x.Request), `"note":"a <b> & c"`, "everything else is kept as it was")
			assert.Contains(t, string(x.Response), `"token":"REDACTED"`)
		}
		p.Close()
	}
}

// TestRecordingRedactsCutAnswers: an answer cut short (a truncated body, a
// stream closed mid-frame) or an event that is not JSON is kept as text
// (Body, Tail, Text), not as JSON; the credentials in it were written to
// the recording as they were. They are redacted as in whole answers.
func TestRecordingRedactsCutAnswers(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"result\":{\"token\":\"tok-in-bad-event\",}}\n\n")
			_, _ = io.WriteString(w, `data: {"result":{"artifact":{"parts":[{"data":{"access_token":"tok-in-tail","more":"`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"id":"push-1","token":"tok-in-cut-body","url":"http://127.0.0.1:9/h?sig=sig-in-cut-body`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p := NewProxy(u, ProxyOptions{})
	defer p.Close()
	for _, path := range []string{"/", "/stream"} {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage"}`))
		req.Header.Set("Content-Type", "application/json")
		p.ServeHTTP(httptest.NewRecorder(), req)
	}
	rec := p.Recording()
	require.Len(t, rec.Exchanges, 2)
	require.NotEmpty(t, rec.Exchanges[0].Body, "the cut body is kept as text")
	require.NotEmpty(t, rec.Exchanges[1].Tail, "the cut frame is kept as the tail")
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	for _, s := range []string{"tok-in-cut-body", "sig-in-cut-body", "tok-in-tail", "tok-in-bad-event"} {
		assert.NotContains(t, string(b), s, "the recording keeps a credential")
	}
	assert.Contains(t, rec.Exchanges[1].Tail, `"access_token":"REDACTED"`)
}

// TestProxyErrorsNameNoCredentials: when the upstream cannot be reached,
// the error the client gets names the URL the proxy dialled; net/http masks
// a password there but not a user name that is a token, nor the query.
// Credentials must not reach a client's logs this way.
func TestProxyErrorsNameNoCredentials(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: listen, note the address, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	for _, keep := range []bool{false, true} {
		for _, upstream := range []string{"http://tok-in-user@" + addr + "/?api_key=key-in-upstream", "http://bob:pw-in-userinfo@" + addr + "/agents/a?api_key=key-in-upstream"} {
			u, err := url.Parse(upstream)
			require.NoError(t, err)
			p := NewProxy(u, ProxyOptions{KeepCredentials: keep})
			req := httptest.NewRequest(http.MethodPost, "/?api_key=key-in-query", strings.NewReader(`{}`))
			w := httptest.NewRecorder()
			p.ServeHTTP(w, req)
			p.Close()
			require.Equal(t, http.StatusBadGateway, w.Code)
			assert.Contains(t, w.Body.String(), "upstream: ", "the error still says what failed")
			assert.Contains(t, w.Body.String(), addr, "and where")
			for _, s := range []string{"tok-in-user", "pw-in-userinfo", "key-in-upstream", "key-in-query"} {
				assert.NotContains(t, w.Body.String(), s, "%s (keep %v)", upstream, keep)
			}
			assert.Empty(t, p.Recording().Exchanges, "a failed exchange is not recorded")
		}
	}
}
