package judge

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WireRecord is one HTTP exchange as the client made it, recorded in front
// of the server: what the journal cannot say (headers, status, timing).
type WireRecord struct {
	// Seq numbers the records in the order their exchanges ended.
	Seq   int       `json:"seq"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Agent is the agent the path addresses.
	Agent string `json:"agent"`
	// Conn is the client's address (host:port) the exchange came from: one
	// HTTP/1.1 connection carries one exchange at a time, so two records
	// with the same Conn were sent one after the other.
	Conn   string `json:"conn,omitempty"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// RPCMethod is the JSON-RPC method of a POST body, when it has one, or
	// the method of a gRPC call as the server serves it (SendMessage, at
	// the root or below an agent's path; none for a method it has not).
	RPCMethod string `json:"rpcMethod,omitempty"`
	// GRPC is set on a call the server serves as a gRPC call (an HTTP/2
	// POST of content type application/grpc, with gRPC served);
	// GRPCStatus is its grpc-status, and RetryAfter its
	// grpc-retry-pushback-ms in whole seconds.
	GRPC       bool `json:"grpc,omitempty"`
	GRPCStatus int  `json:"grpcStatus,omitempty"`
	// GRPCNoStatus is set on a finished gRPC call that ended without a
	// grpc-status (a call cut before its trailers), which GRPCStatus 0
	// cannot tell from OK.
	GRPCNoStatus bool `json:"grpcNoStatus,omitempty"`
	// Request is the journal's number of the A2A request the exchange
	// carried (the Request of its journal entries), JournalSeq the seq of
	// the card or JWKS entry it produced; both 0 when the server journaled
	// nothing of it (a path it does not serve, the client gone first).
	Request    int64 `json:"request,omitempty"`
	JournalSeq int64 `json:"journalSeq,omitempty"`
	// Tenant is the tenant a gRPC call's request named: the agent it is
	// for when the server hosts several.
	Tenant string `json:"tenant,omitempty"`
	// A2AVersion is the A2A-Version header (or query parameter) sent;
	// VersionSent tells an empty one from none.
	A2AVersion  string `json:"a2aVersion,omitempty"`
	VersionSent bool   `json:"versionSent"`
	// Status is the HTTP status answered; 0 when the connection was taken
	// over (a reset) before any.
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter,omitempty"`
	// Hijacked is set when a transport fault took the connection over (to
	// reset it or cut the body), which only HTTP/1.1 allows.
	Hijacked bool `json:"hijacked,omitempty"`
	// Faulted is set when the answer did not reach the client whole: a
	// transport fault cut it (taking the connection over on HTTP/1.1;
	// over HTTP/2, where there is none to take, the call or stream ends
	// where it was cut, a gRPC call without trailers), the handler
	// aborted (an HTTP/2 reset), or a write failed.
	Faulted bool `json:"faulted,omitempty"`
	// Open is set on an exchange the client left unfinished: one still
	// under way when the client's process ended, whose record ends there
	// (End is the exit; it is numbered after every exchange that ended
	// before), or one whose connection the client closed (or whose call
	// it reset) before the answer ended, whose record ends when the mock
	// noticed. Its exit closes the connections the client held, and the
	// mock may notice before the runner learns of the exit or after: the
	// record is open either way. It holds the status and the body written
	// by its end (Status 0 when none was; a gRPC call has no GRPCStatus
	// yet), and Delivered holds that body. The client left before the
	// whole answer reached it, if it ever would have.
	Open bool `json:"open,omitempty"`

	// Delivered is the start of the body the client was sent (bounded):
	// what a faulted, Unreadable or Open answer let it learn.
	Delivered []byte `json:"-"`
}

// isCard reports whether the record is a card fetch.
func (w WireRecord) isCard() bool {
	return strings.HasSuffix(w.Path, "/.well-known/agent-card.json") || strings.HasSuffix(w.Path, "/.well-known/agent.json")
}

// isKeys reports whether the record is a fetch of an agent's card-signing
// keys (its JWKS).
func (w WireRecord) isKeys() bool { return strings.HasSuffix(w.Path, "/.well-known/jwks.json") }

// isA2A reports whether the record is an A2A call (not a card or key fetch,
// not the control API).
func (w WireRecord) isA2A() bool {
	return !w.isCard() && !w.isKeys() && !strings.HasPrefix(w.Path, "/_a2amock")
}

// CardChangeNote starts the detail of the journal note of a card change.
const CardChangeNote = "card-change"

// The gRPC codes a retryable refusal is answered with: HTTP 429 and 503
// map to them (gRPC's http-grpc-status-mapping).
const (
	grpcResourceExhausted = 8
	grpcUnavailable       = 14
)

// retryable reports whether the answer asked the client to come back
// later: HTTP 429 or 503, or their gRPC codes; with a Retry-After (or
// grpc-retry-pushback-ms) it says when.
func (w WireRecord) retryable() bool {
	if w.GRPC {
		return w.GRPCStatus == grpcResourceExhausted || w.GRPCStatus == grpcUnavailable
	}
	return w.Status == http.StatusTooManyRequests || w.Status == http.StatusServiceUnavailable
}

// answered describes the refusal for a failure message.
func (w WireRecord) answered() string {
	if w.GRPC {
		secs, _ := strconv.Atoi(w.RetryAfter)
		return fmt.Sprintf("gRPC status %d with grpc-retry-pushback-ms: %d", w.GRPCStatus, secs*1000)
	}
	return fmt.Sprintf("HTTP %d with Retry-After: %s", w.Status, w.RetryAfter)
}
