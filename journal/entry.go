package journal

import (
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/wire"
)

// EntryKind says what a journal entry records.
type EntryKind string

// The journal entry kinds.
const (
	// EntryRequest is a request as it arrived (after decoding).
	EntryRequest EntryKind = "request"
	// EntryResponse is a unary answer, or the start of a stream.
	EntryResponse EntryKind = "response"
	// EntryDecision is what the agent decided to do with a message.
	EntryDecision EntryKind = "decision"
	// EntryEvent is a state change or artifact the agent emitted for a task.
	EntryEvent EntryKind = "event"
	// EntryStreamClose is the end of a stream, with how it ended.
	EntryStreamClose EntryKind = "stream-close"
	// EntryCard is a card fetch.
	EntryCard EntryKind = "card"
	// EntryJWKS is a fetch of an agent's JWKS (the keys its card
	// signatures name).
	EntryJWKS EntryKind = "jwks"
	// EntryStreamEvent is an event written to a stream: what the client
	// received (Request is the stream's request). Behaviors names the
	// stream behaviors that changed the stream at that point (a duplicate,
	// a held event released, a re-framed write); Detail says how it was
	// written when a behavior wrote it as raw bytes.
	EntryStreamEvent EntryKind = "stream-event"
	// EntryWithheld is an event the agent emitted for a stream that was not
	// written when it was due: Behaviors names the behavior that held it
	// (dropped, held back to be written later, cut mid-frame: Detail).
	EntryWithheld EntryKind = "withheld"
	// EntryPush is a push-notification delivery attempt: HTTP holds the
	// webhook's status, Detail the config, the redacted URL and any error.
	EntryPush EntryKind = "push"
	// EntryDropped records a task the store forgot while it was still
	// running, because the agent reached its bound of running tasks or of
	// retained bytes; Detail says which bound. A client asking for the task
	// afterwards gets TaskNotFoundError.
	EntryDropped EntryKind = "dropped"
	// EntryNote is a note a harness wrote into the journal (the server's
	// Note): a change it made to the run while the client was using it,
	// such as a2amock conform changing an agent's card mid-run, so that a
	// check can tell what the client did before the change from what it
	// did after.
	EntryNote EntryKind = "note"
)

// Kinds lists every entry kind, in the order the control API documents
// them (its ?kind= filter accepts these).
var Kinds = []EntryKind{EntryRequest, EntryResponse, EntryDecision, EntryEvent, EntryStreamClose, EntryCard, EntryPush, EntryDropped, EntryStreamEvent, EntryWithheld, EntryJWKS, EntryNote}

// Entry is one line of the journal. Fields that do not apply are empty.
type Entry struct {
	Seq     int64        `json:"seq"`
	Time    time.Time    `json:"time"`
	Agent   string       `json:"agent"`
	Kind    EntryKind    `json:"kind"`
	Op      wire.Op      `json:"op,omitempty"`
	Method  string       `json:"method,omitempty"`
	Dialect wire.Dialect `json:"dialect,omitempty"`
	Binding wire.Binding `json:"binding,omitempty"`
	// Request numbers the HTTP request the entry belongs to, so a request,
	// its decision and its response can be joined.
	Request   int64          `json:"request,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	MessageID string         `json:"messageId,omitempty"`
	State     wire.TaskState `json:"state,omitempty"`
	// RefTaskID is the task id the client's message named (continuations).
	RefTaskID string `json:"refTaskId,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	HTTP      int    `json:"http,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// PageToken is, on a ListTasks or ListTaskPushNotificationConfigs
	// request, the pageToken the client sent; on its response, the
	// nextPageToken the agent answered.
	PageToken string `json:"pageToken,omitempty"`
	// MessageDigest fingerprints a request message's text (the first 8
	// bytes of its SHA-256, hex), so a resent message can be recognised
	// without the journal keeping what it said.
	MessageDigest string `json:"messageDigest,omitempty"`
	// Version is the A2A-Version a request carried (header or query), empty
	// when it sent none.
	Version string `json:"version,omitempty"`
	// Path is the HTTP path of card fetches and REST requests.
	Path string `json:"path,omitempty"`
	// Metadata holds the message metadata keys (values are not kept, so
	// no credential ends up in the journal).
	MetadataKeys []string `json:"metadataKeys,omitempty"`
	// Ignored lists, on a request, the members of its params (its body,
	// or the query parameters of a bodiless route, over HTTP+JSON) that
	// its dialect does not define, by path: the agent
	// skipped them, as servers do, so a field the client believes it sent
	// (configuration.blocking, v0.3's, under v1.0; ListTasks' page_size,
	// the proto's name where v1.0's JSON reads pageSize) is one the agent
	// never read (and v1.0's returnImmediately or tenant under v0.3).
	// Noted for v1.0 over JSON-RPC and HTTP+JSON, and for v0.2 and v0.3;
	// at most 16.
	Ignored []string `json:"ignored,omitempty"`
	// Behaviors lists the behaviors applied to the request, those in its
	// scope (their spec text); Skipped those configured on the agent that
	// were out of scope, with the scope key that excluded them. On a
	// stream-event or withheld entry, Behaviors names the stream behaviors
	// that shaped it.
	Behaviors []string          `json:"behaviors,omitempty"`
	Skipped   []SkippedBehavior `json:"skipped,omitempty"`
	// NotActed lists, on a decision, the behaviors in scope that left the
	// decision as it was, with why (a continuation naming a task the agent
	// does not hold, say).
	NotActed []behaviors.NotActed `json:"notActed,omitempty"`
	// Acted lists, on a request or card entry, the behaviors that changed
	// anything about it, each with the hook it acted through (a behavior in
	// scope that changed nothing is in Behaviors but not here).
	Acted []ActedBehavior `json:"acted,omitempty"`
}

// SkippedBehavior is a behavior configured on an agent that did not act on
// a request because the request was out of its scope: Key is the scope key
// that excluded it (agent, skill, op, method, dialect, binding, if-metadata,
// unless-metadata, text, call, probability) and Detail what the request had
// against what the scope wants.
type SkippedBehavior struct {
	Behavior string `json:"behavior"`
	Key      string `json:"key"`
	Detail   string `json:"detail"`
}

// ActedBehavior is a behavior that changed what a request got, and through
// which hook: the journal's answer to "which behaviors acted on this
// request", on the request's entry (or the card fetch's).
type ActedBehavior struct {
	// Behavior is the behavior's spec text.
	Behavior string `json:"behavior"`
	// Hook is where it acted: reject, decide, plan, result, stream-event,
	// stream-end, stream-not-stream, delay, transport (a transport
	// fault: behaviors.Exchange.OnTransport), legacy-subscribe,
	// push (the push notifications of the task the request created),
	// push-before-reply, card, card-json, signed-card or hide-card-path.
	Hook string `json:"hook"`
}

// The hooks an ActedBehavior names.
const (
	HookReject          = "reject"
	HookDecide          = "decide"
	HookPlan            = "plan"
	HookResult          = "result"
	HookStreamEvent     = "stream-event"
	HookStreamEnd       = "stream-end"
	HookStreamNotStream = "stream-not-stream"
	HookDelay           = "delay"
	HookTransport       = "transport" // a transport fault (OnTransport)
	HookLegacySubscribe = "legacy-subscribe"
	HookCard            = "card"
	HookCardJSON        = "card-json"
	HookSignedCard      = "signed-card"
	HookHideCardPath    = "hide-card-path"
	HookPush            = "push"
	HookPushBeforeReply = "push-before-reply"
)
