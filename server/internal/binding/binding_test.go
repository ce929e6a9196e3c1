package binding

import (
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/wire"
)

func TestReadBodyBounds(t *testing.T) {
	t.Parallel()
	b, e := ReadBody(httptest.NewRequest(http.MethodPost, "/", strings.NewReader("12345")), 5)
	require.Nil(t, e)
	assert.Equal(t, "12345", string(b))

	_, e = ReadBody(httptest.NewRequest(http.MethodPost, "/", strings.NewReader("123456")), 5)
	require.NotNil(t, e, "declared length over the limit")
	assert.Equal(t, http.StatusRequestEntityTooLarge, e.HTTPStatus)

	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("123456"))
	r.ContentLength = -1 // chunked: the limit is found while reading
	_, e = ReadBody(r, 5)
	require.NotNil(t, e)
	assert.Equal(t, http.StatusRequestEntityTooLarge, e.HTTPStatus)
	assert.Equal(t, wire.CodeInvalidRequest, e.Code)
}

// recordingTransport notes the calls a Transport gets.
type recordingTransport struct{ calls []string }

func (r *recordingTransport) Fail(behaviors.Failure) { r.calls = append(r.calls, "fail") }
func (r *recordingTransport) Cut(int, bool)          { r.calls = append(r.calls, "cut") }
func (r *recordingTransport) Delay(p behaviors.Phase, d time.Duration) {
	r.calls = append(r.calls, "delay "+string(p)+" "+d.String())
}
func (r *recordingTransport) Rewrite(func(int, textproto.MIMEHeader, []byte) (int, []byte), func(textproto.MIMEHeader)) bool {
	return false
}
func (r *recordingTransport) Corrupt(int, func([]byte) []byte) {}
func (r *recordingTransport) HoldKeepAlives(func() bool) bool  { return false }
func (r *recordingTransport) Writer() http.ResponseWriter      { return nil }
func (r *recordingTransport) Stopped() (bool, *wire.Error)     { return false, nil }

// TestApplyTransportDelaysFirst: the start delay runs before the
// transport hooks, which run in the order they were registered.
func TestApplyTransportDelaysFirst(t *testing.T) {
	t.Parallel()
	x := &behaviors.Exchange{}
	h := x.Hooks()
	h.Delay = time.Second
	h.Transport = append(h.Transport, func(t behaviors.Transport) { t.Cut(1, false) }, func(t behaviors.Transport) { t.Fail(behaviors.Failure{}) })
	rt := &recordingTransport{}
	ApplyTransport(rt, h)
	assert.Equal(t, []string{"delay " + string(behaviors.PhaseStart) + " 1s", "cut", "fail"}, rt.calls)
}

// TestCheckSizesNamesTheField: an over-long id, an over-large part and an
// over-large message are each refused naming the field, without its value.
func TestCheckSizesNamesTheField(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("i", MaxIDBytes+1)
	e := CheckSizes(&wire.Request{Message: &wire.Message{MessageID: long}}, 100, 1000)
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeInvalidParams, e.Code)
	assert.Contains(t, e.Message, "message.messageId")
	assert.NotContains(t, e.Message, long)

	e = CheckSizes(&wire.Request{Message: &wire.Message{Parts: []wire.Part{{Text: "ok"}, {Text: strings.Repeat("p", 200)}}}}, 100, 1000)
	require.NotNil(t, e)
	assert.Contains(t, e.Message, "message.parts[1]")

	parts := []wire.Part{{Text: strings.Repeat("p", 90)}, {Text: strings.Repeat("p", 90)}}
	e = CheckSizes(&wire.Request{Message: &wire.Message{Parts: parts}}, 100, 150)
	require.NotNil(t, e)
	assert.Contains(t, e.Message, "MaxMessageBytes")
	assert.Nil(t, CheckSizes(&wire.Request{Message: &wire.Message{Parts: parts}}, 100, 1000))
}

func TestCheckBindings(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckBindings([]wire.Binding{wire.BindingJSONRPC, wire.BindingREST}, wire.V10))
	assert.NoError(t, CheckBindings([]wire.Binding{wire.BindingREST}, wire.V03))
	assert.ErrorContains(t, CheckBindings([]wire.Binding{wire.BindingREST}, wire.V02), "HTTP+JSON is served for v1.0 and v0.3 cards only")
	assert.ErrorContains(t, CheckBindings([]wire.Binding{"SOAP"}, wire.V10), "is not a binding")
}
