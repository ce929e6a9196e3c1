// Package sse writes and reads the Server-Sent-Event streams that A2A uses
// for message/stream, tasks/resubscribe, SendStreamingMessage and
// SubscribeToTask.
//
// The writer is our own small piece of code rather than a library because a
// fault-injecting mock needs byte-level control over the wire: a frame cut
// mid-way followed by EOF ([Writer.Truncate]), arbitrary malformed bytes
// ([Writer.WriteRaw]), a stream held open with nothing but keep-alive
// comments, CRLF framing, JSON spread over several data: lines, events with
// or without ids. Libraries model well-formed events and make exactly these
// shapes impossible to produce.
//
// Reading is done with github.com/tmaxmax/go-sse, whose parser follows the
// WHATWG event-stream rules (LF, CR and CRLF line endings, comments, BOM).
// This package adds what a test client needs on top of it: detection of a
// stream that ends mid-frame (go-sse silently drops the incomplete event),
// context cancellation, and [Do], which refuses to treat a non-SSE reply as
// an empty stream.
//
// github.com/r3labs/sse/v2 is deliberately not used. It has been unmaintained
// since January 2023; its server hangs handlers and leaks goroutines when a
// stream is created per request, which is exactly how A2A streams work; and
// its client only issues GET requests (A2A streams are started by POST),
// retries for 15 minutes by default, and swallows a JSON-RPC error that a
// server sends as a plain application/json reply, so the caller sees zero
// events and no error.
package sse
