// Package core is what every behavior is built on: the Exchange a behavior
// applies to and the hooks it registers there, the Transport interface each
// binding provides for transport faults, the registry that parses behavior
// specs, and scopes. The built-in behaviors live in the subpackages of
// behaviors, by kind (lifecycle, stream, card, push: protocol; transport),
// and package behaviors is their catalogue, which re-exports this package's
// API so that a program needs one import.
//
// A behavior is a small type behind one narrow interface, Behavior, whose
// single method Apply is called once per request in its scope with the
// request's Exchange. Apply registers what the behavior changes through the
// Exchange's hook methods; the server runs the hooks at the right moment and
// never needs to know a behavior by name, so a new fault needs no server
// change.
//
// # Two kinds of behavior
//
// Protocol behaviors change what the agent says: its decision (OnDecide,
// RejectWith), the task's timeline (OnPlan), a unary result (OnResult), the
// events of a stream (OnStreamEvent, OnStreamEnd), the card (OnCard,
// OnCardJSON, OnSignedCard, HideCardAt) and push notifications (OnPush,
// PushBeforeReply). They see canonical values only, so they are the same on
// every binding and can be tested without a socket: apply one to an
// Exchange and call the hooks it registered.
//
// Transport behaviors change how the answer travels: status codes, resets,
// truncation, framing, delays on the wire. They act through OnTransport
// (and AddDelay, a start delay) on the Transport interface, which each
// binding implements in its own terms (an HTTP status or a gRPC status, a
// TCP RST or an RST_STREAM); a behavior's doc says which bindings give it a
// meaning. A few behaviors are both (stream-eof-mid-frame and sse-framing
// write raw frames through RawStream; buffered-burst holds events back and
// keep-alives with them).
//
// # Card fetches
//
// An Agent Card fetch is an Exchange too (Op is OpCard, Request is nil).
// Card hooks apply to it as to the extended card. The hooks that replace
// the answer or change how it travels (RejectWith, AddDelay, OnTransport)
// count on a card fetch only when the behavior's scope names the card
// (op=agent-card): "http-error:op=agent-card" answers the card fetch with
// 503, while an unscoped http-error leaves discovery alone, as every
// transport behavior always has. What is dropped is journaled as not acted.
//
// # Composition, per hook
//
// Behaviors are applied in the order they were configured; each hook kind
// composes as follows.
//   - RejectWith: the last rejection registered wins. A rejected request
//     never reaches the agent and its Result hooks do not run; transport
//     hooks still apply to the rejection's answer (http-error relies on it).
//   - OnDecide: in order, each sees the decision the previous ones left.
//   - OnPlan: in order, each transforms the timeline the previous returned.
//   - OnResult: in order, each gets the previous one's result and error. A
//     streaming request refused before its stream starts runs them too, and
//     only their error is used.
//   - OnStreamEvent: chained. The first registered sees each event first;
//     what it emits goes to the next one, and what the last one emits is
//     written. A hook that emits nothing drops the event.
//   - OnStreamEnd: all run, in order; the stream is held open when any of
//     them asks for it (unless one closed it through RawStream.Close).
//   - AnswerStreamWithJSON: the last one registered wins.
//   - OnCard, OnCardJSON, OnSignedCard: in order, each on the previous
//     one's output; OnCard before rendering, OnCardJSON after it, and
//     OnSignedCard after signing. HideCardAt: the union of the paths.
//     ServeLegacySubscribe: any one turns the route on.
//   - AddDelay: the delays add up, and the sum is waited before anything
//     else is sent (the binding's Transport.Delay at PhaseStart).
//   - OnTransport: in order, after the start delay, when the answer is
//     about to start (after RejectWith and before the agent answers). Each
//     call of a Transport method wraps the answer as the earlier ones left
//     it, so the first registered is nearest the wire and the last one sees
//     the answer first, as the agent wrote it; Fail replaces the answer for
//     everything nearer the wire than it.
//   - Push hooks: see PushHooks.
//
// Every delay a behavior adds waits on Exchange.Clock, the server's
// injected clock, and ends early when the request's context does.
package core

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Behavior is one misbehavior. Apply inspects x and registers hooks on it.
// Apply must not block; randomness must come from x.Rand so a run is
// repeatable from its seed.
type Behavior interface {
	Apply(x *Exchange)
}

// OpCard is the pseudo-operation of an Agent Card request (GET of a
// well-known path), so behaviors can scope to card fetches.
const OpCard wire.Op = "agent-card"

// Exchange is one request to an agent as the behaviors see it, plus the hooks
// they register. The server fills the read-only fields before calling Apply.
type Exchange struct {
	// Agent is the name of the agent the request is for.
	Agent string
	// Op, Dialect and Binding say what was asked and how.
	Op      wire.Op
	Dialect wire.Dialect
	Binding wire.Binding
	// Request is the decoded request; nil for card requests.
	Request *wire.Request
	// HTTP is how the request arrived (every binding is carried by an HTTP
	// request, gRPC's too), for the few behaviors that look at how it was
	// asked (credentials, the HTTP method) and for the request's context
	// (Context). It is the transport part of the Exchange: protocol
	// behaviors do not read it, and it is nil where there is no transport
	// (unit tests).
	HTTP Incoming
	// Card is the agent's declared card.
	Card *cards.Card
	// Skill is the skill the message addresses, or nil.
	Skill *cards.Skill
	// Call is the 1-based number of this request among the agent's requests
	// of the same Op since the last reset.
	Call int
	// Rand is derived from the run's seed, the agent and Call: the only
	// source of randomness a behavior may use.
	Rand *rand.Rand
	// Now is the server clock's time when the request arrived.
	Now time.Time
	// Signing is the agent's card-signing material (see cardsig), for card
	// signature faults; nil when the server does not provide it.
	Signing *CardSigning
	// Clock is the server's clock; every delay a behavior adds waits on it
	// (nil means the wall clock).
	Clock timeline.Clock

	hooks Hooks
	// applying is the spec text of the behavior being applied (ApplyAs);
	// notActed what behaviors in scope reported leaving alone.
	applying string
	notActed []NotActed
	// cardScoped is set while a behavior whose scope names OpCard is
	// applied (ApplyScoped).
	cardScoped bool
}

// Context is the request's context: it ends when the client leaves or the
// server closes. Without a transport (HTTP is nil) it never ends.
func (x *Exchange) Context() context.Context {
	if x.HTTP != nil {
		return x.HTTP.Context()
	}
	return context.Background()
}

// NotActed is a behavior that was in scope of a request but left it as it
// was, and why: the journal's answer to "why didn't it fire" when the scope
// was not the reason.
type NotActed struct {
	// Behavior is the behavior's spec text.
	Behavior string `json:"behavior"`
	// Reason says what about the request kept the behavior from acting.
	Reason string `json:"reason"`
}

// ApplyAs applies b to x as the behavior whose spec text is name, so that
// what b reports through Declined is attributed to it.
func ApplyAs(x *Exchange, name string, b Behavior) {
	prev := x.applying
	x.applying = name
	defer func() { x.applying = prev }()
	b.Apply(x)
}

// ApplyScoped applies s's behavior to x as ApplyAs does, for a caller that
// found x in s's scope (Scope.Miss) and does not check it again. A scope
// that names OpCard lets the behavior fault card fetches on the wire
// (OnTransport, AddDelay, RejectWith).
func ApplyScoped(x *Exchange, name string, s *Scoped) {
	prev := x.cardScoped
	x.cardScoped = slices.Contains(s.Scope.Ops, OpCard)
	defer func() { x.cardScoped = prev }()
	ApplyAs(x, name, s.Behavior)
}

// Declined returns the function a behavior calls, from Apply or from one of
// its hooks, when the request is in its scope but the behavior leaves it as
// it was; reason says why. Call it during Apply and keep the function: the
// hooks run later.
func (x *Exchange) Declined() func(reason string) {
	name := x.applying
	return func(reason string) { x.notActed = append(x.notActed, NotActed{Behavior: name, Reason: reason}) }
}

// NotActed lists what the behaviors reported through Declined so far.
func (x *Exchange) NotActed() []NotActed { return x.notActed }

// Hooks is what the behaviors of one exchange registered, in application
// order. The server reads it through Exchange.Hooks.
type Hooks struct {
	// Reject, when set, answers the request with this error before the agent
	// sees it.
	Reject *wire.Error
	// Decide hooks may change the agent's decision for a message. existing
	// is the task the message names (nil if none or unknown).
	Decide []func(d *timeline.Decision, existing *wire.Task)
	// Plan hooks transform the timeline of the task the request created or
	// continued.
	Plan []func(tl timeline.Timeline) timeline.Timeline
	// Result hooks may replace the result or the error of a unary answer.
	Result []func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error)
	// StreamEvent hooks see each event before it is written to this
	// request's stream; they call emit zero or more times.
	StreamEvent []func(ev wire.Event, emit func(wire.Event) error, raw RawStream) error
	// StreamEnd hooks run when the stream would close normally; returning
	// true keeps it open (with keep-alives) until the client leaves.
	StreamEnd []func(raw RawStream) (holdOpen bool)
	// StreamNotStream answers a streaming request with a plain JSON body
	// (status, content type, bytes) instead of an event stream.
	StreamNotStream func(rpcID []byte) (status int, contentType string, body []byte)
	// Card hooks may change the card served (a copy).
	Card []func(c *cards.Card)
	// CardJSON hooks rewrite the rendered card (JSON) served at a
	// well-known path, after Card hooks and rendering.
	CardJSON []func(b []byte) []byte
	// LegacySubscribe serves SubscribeToTask at the pre-1.0 HTTP+JSON path
	// /tasks/{id}/subscribe, which the honest agent answers with 404.
	LegacySubscribe bool
	// SignedCard hooks change a card after it was signed; a registered
	// hook makes the server sign the card even when it does not sign cards
	// otherwise.
	SignedCard []func(b []byte) []byte
	// HideCardPath hides the card at the named well-known paths (404).
	HideCardPath []string
	// Delay holds the answer back before it starts (the sum of AddDelay).
	Delay time.Duration
	// Transport hooks carry out faults below the protocol (status codes,
	// resets, truncation, framing, delays on the wire) through the
	// binding's Transport.
	Transport []func(t Transport)
	// Push filters the task's push notifications (see push.go).
	Push PushHooks
}

// Hooks returns what the behaviors registered.
func (x *Exchange) Hooks() *Hooks { return &x.hooks }

// RejectWith answers the request with err instead of serving it.
// On a card fetch it counts only from a behavior scoped to the card.
func (x *Exchange) RejectWith(err *wire.Error) {
	if x.transportAllowed() {
		x.hooks.Reject = err
	}
}

// OnDecide registers a change of the agent's decision.
func (x *Exchange) OnDecide(f func(d *timeline.Decision, existing *wire.Task)) {
	x.hooks.Decide = append(x.hooks.Decide, f)
}

// OnPlan registers a transformation of the task's timeline.
func (x *Exchange) OnPlan(f func(tl timeline.Timeline) timeline.Timeline) {
	x.hooks.Plan = append(x.hooks.Plan, f)
}

// OnResult registers a rewrite of a unary answer.
func (x *Exchange) OnResult(f func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error)) {
	x.hooks.Result = append(x.hooks.Result, f)
}

// OnStreamEvent registers a filter of the stream's events.
func (x *Exchange) OnStreamEvent(f func(ev wire.Event, emit func(wire.Event) error, raw RawStream) error) {
	x.hooks.StreamEvent = append(x.hooks.StreamEvent, f)
}

// OnStreamEnd registers a hook at the stream's normal end.
func (x *Exchange) OnStreamEnd(f func(raw RawStream) (holdOpen bool)) {
	x.hooks.StreamEnd = append(x.hooks.StreamEnd, f)
}

// AnswerStreamWithJSON answers a streaming request with a plain body.
func (x *Exchange) AnswerStreamWithJSON(f func(rpcID []byte) (status int, contentType string, body []byte)) {
	x.hooks.StreamNotStream = f
}

// OnCard registers a change of the served card.
func (x *Exchange) OnCard(f func(c *cards.Card)) { x.hooks.Card = append(x.hooks.Card, f) }

// OnCardJSON registers a rewrite of the rendered card, for faults in what
// rendering owns (interfaces, signatures).
func (x *Exchange) OnCardJSON(f func(b []byte) []byte) {
	x.hooks.CardJSON = append(x.hooks.CardJSON, f)
}

// ServeLegacySubscribe serves SubscribeToTask at /tasks/{id}/subscribe.
func (x *Exchange) ServeLegacySubscribe() { x.hooks.LegacySubscribe = true }

// OnSignedCard registers a change of the signed card (signature faults).
func (x *Exchange) OnSignedCard(f func(b []byte) []byte) {
	x.hooks.SignedCard = append(x.hooks.SignedCard, f)
}

// CardSigning is an agent's card-signing material as one request sees it.
type CardSigning struct {
	// Key signs the agent's cards; its public half is in the JWKS at JKU.
	Key cardsig.Key
	// Expired is a second key the JWKS lists as expired ("exp" in the past).
	Expired cardsig.Key
	// JKU is the URL of the agent's JWKS, as the client reached the agent.
	JKU string
}

// HideCardAt makes the card path answer 404.
func (x *Exchange) HideCardAt(path string) { x.hooks.HideCardPath = append(x.hooks.HideCardPath, path) }

// AddDelay holds the answer back by d more, before anything is sent. On a
// card fetch it counts only from a behavior scoped to the card.
func (x *Exchange) AddDelay(d time.Duration) {
	if x.transportAllowed() {
		x.hooks.Delay += d
	}
}

// RawStream gives stream faults byte-level control of the event stream.
type RawStream interface {
	// WriteRaw writes exactly b and flushes.
	WriteRaw(b []byte) error
	// KeepAlive writes an SSE comment.
	KeepAlive() error
	// Encode renders ev as the complete SSE frame the stream would write.
	Encode(ev wire.Event) ([]byte, error)
	// Close ends the stream now, with no further bytes.
	Close()
}

// RawLastWriter is a RawStream that can write the last bytes a hook writes
// for the event it was given without flushing them (WriteRawLast): the
// stream journals the events those bytes complete before it lets them go,
// at once when the stream goes on, with the answer's end when nothing
// follows them. A client that exits as soon as it has read them therefore
// leaves the journal holding what it read, in every run; with WriteRaw
// the bytes reach it before the stream journals them.
type RawLastWriter interface {
	RawStream
	WriteRawLast(b []byte) error
}

// WriteLast writes b, the last bytes a stream-event or stream-end hook
// writes before it returns (or closes the stream), with raw's WriteRawLast
// when it has one, else with WriteRaw. The client receives the same bytes
// in the same reads either way; only when they leave the server changes.
func WriteLast(raw RawStream, b []byte) error {
	if l, ok := raw.(RawLastWriter); ok {
		return l.WriteRawLast(b)
	}
	return raw.WriteRaw(b)
}

// RawCutter is a RawStream that can also end the stream as a crash would:
// without what its binding writes at a proper end (a gRPC call's
// trailers). On a binding with nothing of the kind, Cut is Close.
type RawCutter interface {
	RawStream
	Cut()
}
