package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// TestPolicyClassifiesHosts: loopback names and addresses are dialed
// (checked again at dial time), allowed hosts and prefixes too, reserved
// test names are stored but never dialed, every other host is refused.
func TestPolicyClassifiesHosts(t *testing.T) {
	t.Parallel()
	p := Policy{AllowTo: []string{"hooks.internal", "10.1.0.0/16"}}
	for host, want := range map[string]hostClass{
		"127.0.0.1": hostLoopback, "::1": hostLoopback, "localhost": hostLoopback, "a.localhost.": hostLoopback,
		"hooks.internal": hostAllowed, "10.1.2.3": hostAllowed,
		"hooks.example": hostReserved, "example.com": hostReserved, "x.example.org": hostReserved, "test": hostReserved,
		"10.2.0.1": hostRefused, "evil.com": hostRefused,
	} {
		assert.Equal(t, want, p.classify(host), host)
	}
	assert.Equal(t, hostAllowed, Policy{AllowAny: true}.classify("evil.com"))

	assert.Nil(t, p.CheckURL("http://127.0.0.1:9/hook", "url"))
	for raw, want := range map[string]string{
		"":                      "is not a URL",
		"ftp://127.0.0.1/x":     `scheme "ftp"`,
		"http:///x":             "has no host",
		"https://evil.com/hook": `host "evil.com" is not loopback`,
	} {
		e := p.CheckURL(raw, "pushNotificationConfig.url")
		if assert.NotNil(t, e, raw) {
			assert.Equal(t, wire.CodeInvalidParams, e.Code, raw)
			assert.Contains(t, e.Message, want, raw)
		}
	}
}

// TestRedactionKeepsCredentialsOut: userinfo and query never reach a
// report, whether in the URL or in a client error that quotes it.
func TestRedactionKeepsCredentialsOut(t *testing.T) {
	t.Parallel()
	raw := "http://user:pw@127.0.0.1:1/hook?token=s3cret"
	assert.Equal(t, "http://127.0.0.1:1/hook", RedactURL(raw))
	msg := redactError(&urlError{raw}, raw)
	assert.NotContains(t, msg, "s3cret")
	assert.NotContains(t, msg, "pw@")
}

type urlError struct{ raw string }

func (e *urlError) Error() string { return "dial " + e.raw + ": refused" }

// TestSenderRetriesAndReports: a webhook that answers 503 once and then
// 204 gets two POSTs with the v1.0 headers; each attempt is reported, the
// second as delivered. A reserved host is reported and never dialed.
func TestSenderRetriesAndReports(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hits []http.Header
	var bodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		hits = append(hits, r.Header.Clone())
		bodies = append(bodies, string(b))
		if len(hits) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()

	s := Sender{Retries: 2, Backoff: time.Millisecond, Clock: timeline.RealClock{}, Context: context.Background()}.WithDefaults()
	assert.Equal(t, 2*time.Second, s.Timeout, "the default timeout")
	ev := wire.Event{Status: &wire.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: wire.TaskStatus{State: wire.StateWorking}}}
	job := engine.PushJob{Config: wire.PushConfig{ID: "cfg", URL: hook.URL + "/hook", Token: "tok"}, Dialect: wire.V10, Event: ev}
	type attempt struct {
		status int
		detail string
	}
	var got []attempt
	s.Deliver(job, func(status int, detail string) { got = append(got, attempt{status, detail}) })
	assert.Equal(t, []attempt{
		{503, "attempt 1/3: webhook answered Service Unavailable"},
		{204, "attempt 2/3: delivered"},
	}, got)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, hits, 2)
	assert.Equal(t, "tok", hits[1].Get("A2A-Notification-Token"))
	assert.Equal(t, "application/a2a+json", hits[1].Get("Content-Type"))
	assert.True(t, strings.Contains(bodies[1], `"t-1"`), bodies[1])

	got = nil
	job.Config.URL = "http://hooks.example/x"
	s.Deliver(job, func(status int, detail string) { got = append(got, attempt{status, detail}) })
	assert.Equal(t, []attempt{{0, "not delivered: the host is a reserved example/test name, never dialed"}}, got)
}

// TestDeliverJournaled: each attempt is one push entry naming the config,
// its URL without credentials and what happened.
func TestDeliverJournaled(t *testing.T) {
	t.Parallel()
	s := Sender{Clock: timeline.RealClock{}, Context: context.Background()}.WithDefaults()
	ev := wire.Event{Status: &wire.StatusUpdate{TaskID: "t-1", Status: wire.TaskStatus{State: wire.StateWorking}}}
	job := engine.PushJob{Config: wire.PushConfig{ID: "cfg", URL: "http://user:pw@hooks.example/x?k=s3cret"}, Dialect: wire.V10, Event: ev}
	var got []journal.Entry
	s.DeliverJournaled("a", job, func(e journal.Entry) int64 { got = append(got, e); return int64(len(got)) })
	require.Len(t, got, 1)
	assert.Equal(t, journal.EntryPush, got[0].Kind)
	assert.Equal(t, "t-1", got[0].TaskID)
	assert.Equal(t, wire.StateWorking, got[0].State)
	assert.Equal(t, "config cfg http://hooks.example/x: not delivered: the host is a reserved example/test name, never dialed", got[0].Detail)
}
