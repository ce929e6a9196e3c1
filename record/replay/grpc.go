package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay/internal/canon"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// This file replays calls of A2A's gRPC services: through the engine (the
// server's gRPC binding) when the recorded messages can be taken into the
// model (v1.0's), as the recorded messages and status otherwise.

// serveGRPC answers one gRPC call: matched with the next recorded call of
// the same method, or left to the engine's gRPC binding when there is none
// (or when it is not a call of an A2A service).
func (rp *Replayer) serveGRPC(w http.ResponseWriter, r *http.Request) {
	h := rp.srv.Handler()
	body, err := io.ReadAll(io.LimitReader(r.Body, rp.opts.MaxBodyBytes+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	md := a2apb.MethodAt(r.URL.Path)
	if err != nil || int64(len(body)) > rp.opts.MaxBodyBytes || md == nil {
		h.ServeHTTP(w, r)
		return
	}
	var req json.RawMessage
	if _, msg, _, ok := a2apb.NextMessage(body); ok {
		req, _ = record.GRPCToJSON(md.Input(), msg)
	}
	i, repeated := rp.pick(key(record.KindGRPC, r.URL.Path))
	if i < 0 {
		h.ServeHTTP(w, r)
		return
	}
	p := rp.plans[i]
	if p.raw != "" {
		rp.serveRawGRPC(w, r, req, md, p, repeated)
		return
	}
	id := canon.RequestTaskID(record.KindGRPC, r.URL.Path, req)
	if p.op == wire.OpSend || p.op == wire.OpStream {
		_, _, id = canon.RequestMessage(req, false)
	}
	rp.put(stashKey(p.op, id), p)
	h.ServeHTTP(w, r)
}

// serveRawGRPC answers a call with the recorded messages and status of
// exchange p.idx, at the recorded times, and journals it.
func (rp *Replayer) serveRawGRPC(w http.ResponseWriter, r *http.Request, req json.RawMessage, md protoreflect.MethodDescriptor, p *plan, repeated bool) {
	begin := rp.clock.Now()
	base := rp.journalRequest(r, req, record.KindGRPC, string(md.Name()), p, repeated)
	x := &rp.rec.Exchanges[p.idx]
	resp := base
	resp.Kind = server.EntryResponse
	if rp.noAnswer(r, x, resp, true) {
		return
	}
	if !rp.wait(r.Context(), begin, x.HeadersAfter) {
		resp.Detail = "client left before the answer"
		rp.srv.Append(resp)
		return
	}
	if x.Status != http.StatusOK || !record.IsGRPCContentType(x.ContentType) {
		// Not a gRPC answer: the recorded HTTP status, type and body.
		out := []byte(x.Body)
		if len(x.Response) > 0 {
			out = x.Response
		}
		resp.HTTP = x.Status
		rp.srv.Append(resp)
		if x.ContentType != "" {
			w.Header().Set("Content-Type", x.ContentType)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(x.Status)
		_, _ = w.Write(out)
		return
	}
	w.Header().Set("Content-Type", x.ContentType)
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	if !x.Streamed() || !md.IsStreamingServer() {
		if msg, ok := recordedMessage(md, x.Response, x.Body); ok {
			_, _ = w.Write(a2apb.AppendMessage(nil, msg))
			describeAnswer(&resp, x.Response)
		}
		if !x.Streamed() {
			rp.endGRPC(w, x, &resp)
			rp.srv.Append(resp)
			return
		}
		// Cut before its status (or still open when the recording was
		// taken): its message, then the end a stream with no further
		// message has.
	}
	_ = rc.Flush()
	rp.srv.Append(resp)
	closing := base
	closing.Kind = server.EntryStreamClose
	closing.Detail = rp.replayGRPCStream(w, rc, r, md, x, begin, base)
	rp.srv.Append(closing)
}

// recordedMessage is the wire form of a recorded message: its JSON encoded
// again, or the bytes recorded as they were when they were not one.
func recordedMessage(md protoreflect.MethodDescriptor, j json.RawMessage, text string) ([]byte, bool) {
	if len(j) > 0 {
		msg, err := record.GRPCFromJSON(md.Output(), j)
		return msg, err == nil
	}
	return []byte(text), text != ""
}

// replayGRPCStream writes the recorded messages of a server-streaming call
// at their recorded offsets, journaling each, then ends the call as it
// ended; it returns how it ended.
func (rp *Replayer) replayGRPCStream(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, md protoreflect.MethodDescriptor, x *record.Exchange, begin time.Time, base server.Entry) string {
	var msg []byte
	return rp.playStream(r, x, begin, base, streamOut{
		data: func(ev record.Event) ([]byte, bool) {
			var ok bool
			msg, ok = recordedMessage(md, ev.Data, ev.Text)
			return ev.Data, ok
		},
		write: func(record.Event, []byte) error {
			if _, err := w.Write(a2apb.AppendMessage(nil, msg)); err != nil {
				return err
			}
			return rc.Flush()
		},
		raw: func(b []byte) { _, _ = w.Write(b) },
		finish: func() string {
			if x.End == record.EndError {
				return "ended without a status, as recorded"
			}
			rp.endGRPC(w, x, nil)
			return "ended as recorded: grpc-status " + strconv.Itoa(x.GRPCStatus)
		},
		unit: "message",
	})
}

// endGRPC sets the recorded status as the call's trailers (none when the
// recorded call ended without one) and says it in e, when given.
func (rp *Replayer) endGRPC(w http.ResponseWriter, x *record.Exchange, e *server.Entry) {
	if x.End != "" && x.End != record.EndEOF {
		return
	}
	h := w.Header()
	h.Set(http.TrailerPrefix+"Grpc-Status", strconv.Itoa(x.GRPCStatus))
	if x.GRPCMessage != "" {
		h.Set(http.TrailerPrefix+"Grpc-Message", url.PathEscape(x.GRPCMessage))
	}
	if x.GRPCDetails != "" {
		h.Set(http.TrailerPrefix+"Grpc-Status-Details-Bin", x.GRPCDetails)
	}
	if e != nil && x.GRPCStatus != 0 {
		e.Detail = fmt.Sprintf("grpc-status %d: %s", x.GRPCStatus, x.GRPCMessage)
	}
}
