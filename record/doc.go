// Package record records a real A2A agent through a transparent proxy and
// replays the recording as a fake agent.
//
// [NewProxy] forwards everything a client sends (card fetches, JSON-RPC,
// HTTP+JSON, SSE streams) to the upstream agent and the answers back
// unchanged, streaming SSE events through as they arrive. Only the
// interface URLs of served cards are rewritten to the proxy's own address,
// so a client that discovers the agent from its card keeps talking through
// the proxy. What passed is kept, with timings, as a [Recording] that
// [Recording.Save] writes as JSON or YAML and [Load] reads back.
//
// [NewReplayer] serves a recording: each incoming request is answered by
// the next recorded exchange of the same kind (same JSON-RPC method, or same
// HTTP method and REST route), with the recorded status, body or SSE events
// and the recorded timing scaled by a speed factor. JSON-RPC ids are
// rewritten to the incoming request's id; task and context ids stay the
// recorded ones, which the client then sends back. A [Splice] injects one
// fault into every replayed stream at event N.
//
// Replay is a dedicated http.Handler rather than a timeline played by
// package server. A recording is wire bytes of one dialect from an agent
// that may not be a2amock: feeding it through the server's canonical model
// and codecs would drop fields the model does not carry, re-shape errors
// and plain-message replies, and let the server mint its own task ids and
// opening events; the server also has no hook to answer a unary operation
// with a recorded result. Replaying the bytes keeps what the client sees
// identical to what it saw from the real agent, which is the point of
// reproducing an incident. The observed timings are kept per event, so a
// recorded stream is still "a timeline with observed timings" as DESIGN.md
// puts it; [Exchange.States] lists the states it went through.
package record
