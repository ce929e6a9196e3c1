package behaviors_test

import (
	"fmt"
	"math/rand/v2"
	"net/textproto"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/wire"
)

// recTransport records what transport behaviors ask of a binding, so they
// are tested without a socket.
type recTransport struct {
	calls   []string
	rewrite bool
}

func (r *recTransport) Fail(f behaviors.Failure) {
	r.calls = append(r.calls, fmt.Sprintf("fail %d %q %q", f.Status, f.Header.Get("Retry-After"), f.Body))
}
func (r *recTransport) Cut(n int, reset bool) {
	r.calls = append(r.calls, fmt.Sprintf("cut %d %v", n, reset))
}
func (r *recTransport) Delay(p behaviors.Phase, d time.Duration) {
	r.calls = append(r.calls, fmt.Sprintf("delay %s %v", p, d))
}
func (r *recTransport) Rewrite(u func(int, textproto.MIMEHeader, []byte) (int, []byte), _ func(textproto.MIMEHeader)) bool {
	if r.rewrite && u != nil {
		h := textproto.MIMEHeader{}
		st, b := u(200, h, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m"}}`))
		r.calls = append(r.calls, fmt.Sprintf("rewrite %d %s %v", st, b, h))
	}
	return r.rewrite
}
func (r *recTransport) Corrupt(nth int, f func([]byte) []byte) {
	r.calls = append(r.calls, fmt.Sprintf("corrupt %d %s", nth, f([]byte(`{"a":1}`))))
}
func (r *recTransport) HoldKeepAlives(func() bool) bool {
	r.calls = append(r.calls, "hold")
	return true
}

// applyTransport applies spec to an exchange of op over binding b and runs
// the transport hooks it registered on a recording Transport.
func applyTransport(t *testing.T, spec string, op wire.Op, b wire.Binding, rewrite bool) (*behaviors.Exchange, []string) {
	t.Helper()
	s, err := behaviors.Parse(spec)
	require.NoError(t, err)
	x := &behaviors.Exchange{Op: op, Binding: b, Dialect: wire.V10, Call: 1, Rand: rand.New(rand.NewPCG(1, 1))}
	if op != behaviors.OpCard {
		x.Request = &wire.Request{Op: op, Binding: b, Dialect: wire.V10}
	}
	s.Apply(x)
	rt := &recTransport{rewrite: rewrite}
	for _, f := range x.Hooks().Transport {
		f(rt)
	}
	return x, rt.calls
}

func TestTransportBehaviorsAskTheBinding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec string
		want []string
	}{
		{"http-error:status=503,body=down", []string{`fail 503 "1" "down"`}},
		{"http-error:status=502", []string{`fail 502 "" "502 Bad Gateway\n"`}},
		{"empty-response", []string{`fail 200 "" ""`}},
		{"connection-reset:after=4", []string{"cut 4 true"}},
		{"truncated-body", []string{"cut -1 false"}},
		{"truncated-body:bytes=9", []string{"cut 9 false"}},
		{"latency:delay=2s,phase=body", []string{"delay body 2s"}},
		{"latency:delay=2s", nil},
		{"malformed-json", []string{`corrupt 1 {"a":1`}},
		{"malformed-json:mode=trailing-comma,event=3", []string{`corrupt 3 {"a":1,}`}},
		{"error-data-shape:shape=absent", []string{`rewrite 200 {"error":{"code":-32001,"message":"m"},"id":1,"jsonrpc":"2.0"} map[]`}},
		{"content-type:type=text/plain", []string{`rewrite 200 {"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m"}} map[Content-Type:[text/plain]]`}},
	} {
		_, calls := applyTransport(t, c.spec, wire.OpSend, wire.BindingJSONRPC, true)
		assert.Equal(t, c.want, calls, c.spec)
	}
	x, _ := applyTransport(t, "latency:delay=2s", wire.OpSend, wire.BindingJSONRPC, true)
	assert.Equal(t, 2*time.Second, x.Hooks().Delay, "a start delay is the exchange's, waited before the hooks")
}

// A binding without a meaning for a rewrite says so; the behavior reports
// it left the request alone.
func TestTransportRewriteDeclined(t *testing.T) {
	t.Parallel()
	x, calls := applyTransport(t, "content-type:type=text/plain", wire.OpSend, wire.BindingGRPC, false)
	assert.Empty(t, calls)
	require.Len(t, x.NotActed(), 1)
	assert.Equal(t, "content-type:type=text/plain", x.NotActed()[0].Behavior)
}

// On a card fetch transport hooks count only from a behavior scoped to it.
func TestTransportCardFetchNeedsCardScope(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"http-error", "connection-reset", "truncated-body", "empty-response", "malformed-json", "latency:delay=1s", "latency:delay=1s,phase=body", "content-type"} {
		x, calls := applyTransport(t, spec, behaviors.OpCard, "", true)
		assert.Empty(t, calls, spec)
		assert.Zero(t, x.Hooks().Delay, spec)
		assert.Nil(t, x.Hooks().Reject, spec)
		require.Len(t, x.NotActed(), 1, spec)
		assert.Contains(t, x.NotActed()[0].Reason, "op=agent-card", spec)
	}
	x, calls := applyTransport(t, "http-error:op=agent-card|send", behaviors.OpCard, "", true)
	assert.Equal(t, []string{`fail 503 "1" "503 Service Unavailable\n"`}, calls)
	require.NotNil(t, x.Hooks().Reject)
	assert.Empty(t, x.NotActed())
	x, _ = applyTransport(t, "latency:op=agent-card,delay=3s", behaviors.OpCard, "", true)
	assert.Equal(t, 3*time.Second, x.Hooks().Delay)
	// Card behaviors (protocol) apply to card fetches unscoped, as before.
	x, _ = applyTransport(t, "card-underclaims", behaviors.OpCard, "", true)
	assert.NotEmpty(t, x.Hooks().Card)
}
