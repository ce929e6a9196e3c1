package transport

import (
	"fmt"
	"math"
	"net/http"
	"net/textproto"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var httpErrorSpec = core.Spec{
	Name: "http-error",
	Doc: `Reproduces failures in front of the agent: a gateway or load balancer
answering 502/503/504, a rate limiter answering 429, a WAF answering 403,
with a body that is not A2A (plain text by default). The agent never sees
the request. The status is drawn from 'status' (seeded) per request; 429 and
503 carry Retry-After (whole seconds) unless retry-after=0s. Card fetches
are affected only when the scope names them (op=agent-card: the card URL
answers the status). All bindings: on gRPC the answer is trailers-only,
with the gRPC code of the status (429, 502, 503, 504: UNAVAILABLE; 401:
UNAUTHENTICATED; 403: PERMISSION_DENIED; 404: UNIMPLEMENTED; others:
UNKNOWN), the body as grpc-message and Retry-After as
grpc-retry-pushback-ms. Tests that a client maps HTTP failures to errors without
trying to parse the body as JSON-RPC, honours Retry-After, and retries only
what is safe to retry.`,
	New: func() core.Behavior {
		return &HTTPError{Statuses: []int{http.StatusServiceUnavailable}, RetryAfter: time.Second, ContentType: "text/plain; charset=utf-8"}
	},
}

// HTTPError answers requests with an HTTP error status before the agent
// sees them.
type HTTPError struct {
	Statuses    []int         `param:"status" doc:"HTTP status codes to answer with, one drawn per request (e.g. 429|503)"`
	RetryAfter  time.Duration `param:"retry-after" doc:"Retry-After sent with 429 and 503, rounded up to whole seconds; 0s sends none"`
	Body        string        `param:"body" doc:"the body; empty means the status line's text"`
	ContentType string        `param:"content-type" doc:"the body's Content-Type"`
}

// Validate implements Validator.
func (b *HTTPError) Validate() error {
	if len(b.Statuses) == 0 {
		return fmt.Errorf("status needs at least one code")
	}
	for _, s := range b.Statuses {
		if s < 400 || s > 599 {
			return fmt.Errorf("status %d is not an HTTP error status (400-599)", s)
		}
	}
	if b.RetryAfter < 0 {
		return fmt.Errorf("retry-after must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *HTTPError) Apply(x *core.Exchange) {
	status := b.Statuses[0]
	if len(b.Statuses) > 1 {
		status = b.Statuses[core.Rand(x).IntN(len(b.Statuses))]
	}
	body := b.Body
	if body == "" {
		body = strconv.Itoa(status) + " " + http.StatusText(status) + "\n"
	}
	h := textproto.MIMEHeader{"Content-Type": {b.ContentType}}
	if b.RetryAfter > 0 && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(b.RetryAfter.Seconds()))))
	}
	// Rejecting keeps the agent from acting; the journal records why.
	x.RejectWith(wire.Errorf(wire.CodeInternal, "http-error: answered HTTP %d", status))
	x.OnTransport(func(t core.Transport) { t.Fail(core.Failure{Status: status, Header: h, Body: []byte(body)}) })
}
