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
// Package record/replay serves a recording as a fake agent (the engine
// plays it); this package's Classify, RewriteCard and the format are what
// both halves share.
package record
