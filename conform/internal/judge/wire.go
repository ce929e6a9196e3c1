package judge

import (
	"strings"
	"time"
)

// WireRecord is one HTTP exchange as the client made it, recorded in front
// of the server: what the journal cannot say (headers, status, timing).
type WireRecord struct {
	Seq   int       `json:"seq"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Agent is the agent the path addresses.
	Agent  string `json:"agent"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// RPCMethod is the JSON-RPC method of a POST body, when it has one.
	RPCMethod string `json:"rpcMethod,omitempty"`
	// A2AVersion is the A2A-Version header (or query parameter) sent;
	// VersionSent tells an empty one from none.
	A2AVersion  string `json:"a2aVersion,omitempty"`
	VersionSent bool   `json:"versionSent"`
	// Status is the HTTP status answered; 0 when the connection was taken
	// over (a reset) before any.
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter,omitempty"`
	Hijacked   bool   `json:"hijacked,omitempty"`
	// Faulted is set when the answer did not reach the client whole: the
	// connection was taken over (a reset or a cut body) or a write failed.
	Faulted bool `json:"faulted,omitempty"`

	// Delivered is the start of the body the client was sent (bounded):
	// what a faulted answer let it learn.
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
