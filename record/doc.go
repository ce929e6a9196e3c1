// Package record records a real A2A agent through a transparent proxy and
// replays the recording as a fake agent.
//
// [NewProxy] forwards everything a client sends (card fetches, JSON-RPC,
// HTTP+JSON, SSE streams, gRPC calls) to the upstream agent and the
// answers back unchanged, streaming SSE events and gRPC messages through
// as they arrive. Only the interface URLs of served cards are rewritten to
// the proxy's own address (a GRPC interface's host:port too), so a client
// that discovers the agent from its card keeps talking through the proxy;
// serve the proxy with h2c ([ServeH2C]) for gRPC clients to reach it. gRPC
// calls go to the address the last card declared for GRPC, else to the
// upstream URL's host. Calls of A2A's gRPC services (v1.0's and v0.3's)
// are recorded as [KindGRPC] exchanges, their messages in the proto's
// JSON form; other services' calls pass through unrecorded. What passed
// is kept, with timings, as a [Recording] that [Recording.Save] writes as
// JSON or YAML and [Load] reads back.
//
// A recording may be written or edited by hand. [Load] and [LoadFile]
// refuse unknown fields, wrong types and cut files with a [LoadError] that
// says where: file:line:col and the path of the value, e.g.
// exchanges[2] for the third exchange. An exchange with a response (which
// holds JSON only) and no contentType is taken as application/json, the
// type the proxy records for it, so replay serves and journals it as JSON;
// a body that is not JSON goes in body, with the contentType it needs.
//
// Package record/replay serves a recording as a fake agent (the engine
// plays it); this package's Classify and the format, and the card
// rewriting of record/internal/cardlink, are what both halves share.
package record
