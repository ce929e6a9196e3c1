// Package replay serves a recording made by package record as a fake agent.
//
// # Replay through the engine
//
// [New] serves a recording on an a2amock server (package server):
// the journal is the server's journal ([server.Entry]), the control API is
// the server's (/_a2amock/journal, /journal/stream, /reset, /behaviors,
// ...; loopback only unless a control token is given), and so the testkit's
// assertions and the conform checks read a replay as they read a mock.
// Faults are behaviors: any behavior of the registry
// ([Options.Behaviors], or PUT /_a2amock/behaviors on a running
// replay) and the [Splice] shorthand, itself a registry behavior
// ("splice:at=N,fault=F").
//
// A replay serves gRPC too (h2c; [server.Server.ServeGRPCWith] on the
// http.Server serving the Replayer): a recorded call of A2A v1.0's or
// v0.3's gRPC service is played through the engine and its gRPC binding
// as any recorded request is, and answered with the recorded messages and
// status when the engine cannot play it (an error status, a call that
// ended without one).
//
// The recorded answers are read in the form of the binding that serves
// them: JSON-RPC results in their dialect's JSON-RPC form; HTTP+JSON
// bodies and gRPC messages (recorded in their proto's JSON) in the form
// of the dialect's HTTP+JSON codec, v0.3's being the v0.3 proto's JSON,
// which the gRPC binding transcodes its messages through. The engine
// serves v0.3's HTTP+JSON routes and gRPC service only for an agent whose
// card is v0.3: a recording without a card is played with a generated
// card of that dialect when it has such exchanges.
//
// Each request is matched with the next recorded exchange of the same kind
// (same JSON-RPC method, or same HTTP method and REST route; the last one
// again when they are used up). A recorded send is played by the engine as
// a scripted timeline: the decision (a new task with the recorded task and
// context ids, the continuation of a recorded task, a rejection with the
// recorded error, a plain message) and the states and artifacts the task
// went through at the times they were observed — in the send's own answer
// or stream, then in the polls and subscriptions that followed until the
// next message to the task. A send answered before its task settled is
// answered at the recorded time with the recorded state, whatever the
// client asked. The engine renders its answers with the recorded values
// (timestamps, message ids, artifacts), so a client sees the bytes it saw
// from the agent; GetTask, ListTasks, CancelTask, subscriptions and push
// configs are answered by the engine from the tasks the replay played (a
// recorded GetTask or CancelTask answer stands in when it names the same
// task in the same state, a recorded error always), and a request the
// recording has no exchange for is answered by the engine as a2amock's
// honest agent would.
//
// # Raw bytes, where the model cannot express them
//
// A recorded value is taken into the model only when the binding renders
// the decoded value back to the same JSON (for gRPC, the codec's JSON read
// as the response message, as the binding sends it). The exchanges replayed
// as the recorded bytes (with the request's JSON-RPC id), and journaled as
// such with the reason in the request entry's detail, are:
//   - agent card fetches (served as the agent wrote them, with the interface
//     URLs pointed at the replay; the engine plays the parsed card);
//   - answers that are not HTTP 200, not JSON, or carry a member, spelling
//     or shape the model does not (a vendor extension, a v0.1 shape, an
//     HTTP+JSON error body);
//   - streams whose events carry SSE id or event fields or non-JSON data, an
//     error inside the stream, a stream that does not open with the task
//     (a new task's stream opening on working, say) or a JSON body answering
//     a streaming request;
//   - v0.3 HTTP+JSON (routes below /v0.3/v1/) and gRPC exchanges of a
//     recording whose card is not v0.3 (the engine serves them for a v0.3
//     card only);
//   - gRPC calls answered with an error status, cut before their status,
//     or answered with something other than gRPC (the recorded messages,
//     re-encoded from their JSON, and status; or the recorded HTTP answer).
//
// Recorded JSON bodies and events are written compact, as the proxy
// recorded them, whatever the recording file's indentation.
//
// A stream cut mid-frame is played by the engine and its cut frame written
// as recorded after the last event. Behaviors other than [Splice] do not
// act on raw exchanges.
package replay
