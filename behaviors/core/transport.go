package core

import (
	"context"
	"net/textproto"
	"time"
)

// Transport is how one binding carries an answer on the wire, as the
// transport behaviors act on it: the single interface a binding provides
// for faults below the protocol (status codes, resets, truncation, framing,
// delays on the wire). The HTTP bindings (JSON-RPC and HTTP+JSON) implement
// it over the HTTP response, the gRPC binding over the HTTP/2 stream of the
// call; each method's doc says what it means on each. A behavior reaches it
// through Exchange.OnTransport; the server calls those hooks, in the order
// they were registered, when the answer is about to start.
//
// Every method may be called more than once and by several behaviors: each
// call wraps the answer as the earlier calls left it, so the first call is
// nearest the wire and the latest one sees the answer first, as the agent
// wrote it, and hands on what it lets through (a Rewrite called after a Cut
// rewrites the whole body, which the Cut then cuts; a Fail replaces the
// answer, and the calls made before it act on the replacement).
type Transport interface {
	// Fail answers with f instead of the answer, as something in front of
	// the agent would. HTTP: f's status, headers and body. gRPC: a
	// trailers-only answer whose grpc-status is the code gRPC maps f's
	// HTTP status to (429, 502, 503, 504: UNAVAILABLE; 401:
	// UNAUTHENTICATED; 403: PERMISSION_DENIED; 404: UNIMPLEMENTED; 400:
	// INTERNAL; 2xx: OK with no message; any other: UNKNOWN), the body as
	// grpc-message and Retry-After as grpc-retry-pushback-ms.
	Fail(f Failure)
	// Cut ends the answer after n bytes of its body (negative: half of its
	// first write), abruptly when reset is set. HTTP: the connection is
	// closed, with a TCP RST (SO_LINGER 0) when reset, a FIN otherwise;
	// reset with n == 0 resets before the status line. gRPC: reset sends
	// RST_STREAM (after the headers and n bytes of the message when n >
	// 0); without reset the call's stream ends after n bytes of its
	// length-prefixed message, with no trailers (a cut message).
	Cut(n int, reset bool)
	// Delay holds the answer back by d on the exchange's clock:
	// PhaseStart before anything is sent, PhaseBody after the status line
	// and headers went out (gRPC: the response headers), before the first
	// body byte (the first message). gRPC: a delay that runs past the
	// call's deadline (grpc-timeout) ends it there with DEADLINE_EXCEEDED,
	// as a gRPC server does.
	Delay(p Phase, d time.Duration)
	// Rewrite rewrites the encoded answer: unary (when not nil) gets a
	// unary answer's status, headers (to change in place) and body and
	// returns the status and body sent; stream (when not nil) changes the
	// headers of a streamed one. HTTP only (the rewrites are of JSON
	// bodies and HTTP headers): the gRPC binding reports false and leaves
	// the answer alone.
	Rewrite(unary func(status int, h textproto.MIMEHeader, body []byte) (int, []byte), stream func(h textproto.MIMEHeader)) bool
	// Corrupt breaks the encoded answer with f: a unary answer's body or
	// the nth event (1-based; 0 for every event) of a stream, the length announced fixed up
	// so that the client receives every byte and fails on the content
	// alone. HTTP: f rewrites the JSON (the unary body, an SSE frame).
	// gRPC: f is not used: the nth message (a unary answer is message 1)
	// gets a field no protobuf decoder accepts (field 0, wire type 7)
	// appended, and its length prefix counts it.
	Corrupt(nth int, f func([]byte) []byte)
	// HoldKeepAlives swallows the stream's keep-alives while hold reports
	// true, as a buffer between agent and client would. HTTP: the SSE
	// comments. gRPC: nothing to hold (liveness is HTTP/2 PING, answered
	// below the binding); it reports false.
	HoldKeepAlives(hold func() bool) bool
}

// Incoming is how a request arrived, as its binding tells the behaviors
// (Exchange.HTTP): the transport part of an Exchange, so that neither the
// Exchange nor the protocol behaviors need net/http.
type Incoming interface {
	// Context ends when the client leaves or the server closes.
	Context() context.Context
	// Method is the HTTP method; Path the URL path, unescaped.
	Method() string
	Path() string
	// Header, Query and Cookie return the named header, query parameter
	// or cookie; "" when absent.
	Header(name string) string
	Query(name string) string
	Cookie(name string) string
}

// Phase is where in an answer a Transport delay falls.
type Phase string

// The phases of Transport.Delay.
const (
	// PhaseStart holds the whole answer back (time to first byte).
	PhaseStart Phase = "start"
	// PhaseBody sends the headers at once and holds the body back.
	PhaseBody Phase = "body"
)

// Failure is an answer sent in place of the agent's by Transport.Fail: an
// HTTP status with its headers and body (see Transport.Fail for the gRPC
// meaning).
type Failure struct {
	// Status is the HTTP status, 200-599.
	Status int
	// Header holds the answer's headers (Content-Type, Retry-After, ...).
	Header textproto.MIMEHeader
	// Body is the answer's body; nil sends an empty one.
	Body []byte
}

// OnTransport registers a transport fault: f runs with the binding's
// Transport when the answer is about to start. On a card fetch (OpCard)
// the hook counts only when the behavior's scope names op=agent-card (see
// the package doc).
func (x *Exchange) OnTransport(f func(t Transport)) {
	if !x.transportAllowed() {
		return
	}
	x.hooks.Transport = append(x.hooks.Transport, f)
}

// transportAllowed reports whether hooks that change how the answer
// travels (or replace it) may be registered now: always, except on a card
// fetch, where only a behavior whose scope names OpCard may fault it, so
// that an unscoped transport fault leaves card discovery alone.
func (x *Exchange) transportAllowed() bool {
	if x.Op != OpCard || x.cardScoped {
		return true
	}
	if n := len(x.notActed); x.applying != "" && (n == 0 || x.notActed[n-1].Behavior != x.applying) {
		x.notActed = append(x.notActed, NotActed{Behavior: x.applying,
			Reason: "a card fetch is faulted on the wire only by a behavior scoped to it (op=" + string(OpCard) + ")"})
	}
	return false
}
