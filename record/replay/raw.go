package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/internal/cardlink"
	"github.com/a2amock/a2amock/record/replay/internal/canon"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// This file answers the exchanges the engine cannot play with the recorded
// bytes, and journals them in the server's journal as the engine journals
// its own answers.

// wait sleeps the recorded delay d (scaled) measured from begin; false
// when the client left or the replayer closed first.
func (rp *Replayer) wait(ctx context.Context, begin time.Time, d record.Duration) bool {
	left := begin.Add(rp.scale(time.Duration(d))).Sub(rp.clock.Now())
	if left <= 0 {
		return ctx.Err() == nil
	}
	fired, stop := rp.clock.NewTimer(left)
	defer stop()
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	case <-rp.ctx.Done():
		return false
	}
}

// hold keeps a stream open, silent, until the client leaves or the
// replayer closes.
func (rp *Replayer) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-rp.ctx.Done():
	}
}

// noAnswer holds a request whose recorded agent had not answered when the
// recording was taken (Exchange.Unanswered) until its client leaves (or
// the replay closes), answering nothing, as the agent did; it reports
// whether it did. journal says to journal the end, as resp.
func (rp *Replayer) noAnswer(r *http.Request, x *record.Exchange, resp server.Entry, journal bool) bool {
	if !x.Unanswered() {
		return false
	}
	rp.hold(r)
	if journal {
		resp.Detail = "no answer, as recorded (the agent had not answered when the recording was taken): held until the client left"
		rp.srv.Append(resp)
	}
	return true
}

// journalRequest journals a request the front answers itself and returns
// the entry the answer's entries start from.
func (rp *Replayer) journalRequest(r *http.Request, body []byte, kind record.Kind, method string, p *plan, repeated bool) server.Entry {
	x := record.Exchange{Kind: kind, Method: method, Path: r.URL.Path}
	d, op, binding := canon.DialectOf(&x)
	base := server.Entry{Agent: AgentName, Op: op, Dialect: d, Binding: binding}
	if kind == record.KindCard {
		base.Op = behaviors.OpCard
	}
	detail := fmt.Sprintf("recorded bytes of exchange %d: %s", p.idx, p.raw)
	if repeated {
		detail += " (the recorded exchanges of this kind are used up: the last one again)"
	}
	if kind == record.KindCard {
		e := base
		e.Kind, e.Path, e.Detail = server.EntryCard, r.URL.Path, detail
		rp.srv.Append(e)
		return base
	}
	base.Request = rp.srv.NewRequestNumber()
	e := base
	e.Kind, e.Detail = server.EntryRequest, detail
	e.Version = r.Header.Get("A2A-Version")
	if e.Version == "" {
		e.Version = r.URL.Query().Get("A2A-Version")
	}
	switch kind {
	case record.KindJSONRPC:
		e.Method = method
	case record.KindREST:
		httpMethod, route, _ := strings.Cut(method, " ")
		e.Method = httpMethod + " " + strings.TrimPrefix(route, "/rest")
		e.Path = r.URL.Path
	case record.KindGRPC:
		e.Method, e.Path = method, r.URL.Path
	}
	if op == wire.OpSend || op == wire.OpStream {
		e.RefTaskID, e.ContextID, e.MessageID = canon.RequestMessage(body, kind == record.KindJSONRPC)
	} else {
		e.TaskID = canon.RequestTaskID(kind, r.URL.Path, body)
	}
	if splice := rp.opts.Splice; splice != nil && op.Streaming() {
		e.Behaviors = []string{splice.String()}
	}
	rp.srv.Append(e)
	base.Method = e.Method
	return base
}

// serveRaw answers a request with the recorded bytes of exchange p.idx.
func (rp *Replayer) serveRaw(w http.ResponseWriter, r *http.Request, body []byte, kind record.Kind, method string, p *plan, repeated bool) {
	begin := rp.clock.Now()
	base := rp.journalRequest(r, body, kind, method, p, repeated)
	x := &rp.rec.Exchanges[p.idx]
	_, _, rpcID := record.Classify(r.Method, r.URL.Path, body)
	resp := base
	resp.Kind, resp.HTTP = server.EntryResponse, x.Status
	if rp.noAnswer(r, x, resp, kind != record.KindCard) {
		return
	}
	if !rp.wait(r.Context(), begin, x.HeadersAfter) {
		if kind != record.KindCard {
			resp.Detail = "client left before the answer"
			rp.srv.Append(resp)
		}
		return
	}
	if x.ContentType != "" {
		w.Header().Set("Content-Type", x.ContentType)
	}
	if !x.Streamed() {
		out := []byte(x.Body)
		if len(x.Response) > 0 {
			out = x.Response
			if card, inResult := record.IsCardAnswer(kind, method, r.URL.Path); card && x.Status == http.StatusOK {
				out = cardlink.Rewrite(out, inResult, rp.fromPath, record.Origin(r))
			}
			out = record.WithID(out, rpcID)
			describeAnswer(&resp, out)
		}
		if kind != record.KindCard {
			rp.srv.Append(resp)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(x.Status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(out)
		}
		return
	}
	rp.srv.Append(resp)
	closing := base
	closing.Kind = server.EntryStreamClose
	closing.Detail = rp.replayStream(w, r, x, rpcID, begin, base)
	rp.srv.Append(closing)
}

// describeAnswer fills in what the journal says of an answer body
// (canon.Describe): the task and state it reported, or the JSON-RPC error.
func describeAnswer(e *server.Entry, b []byte) {
	d := canon.Describe(b)
	if d.ErrorCode != 0 {
		e.ErrorCode, e.Detail = d.ErrorCode, d.ErrorMessage
	}
	if d.State != "" {
		e.State = d.State
	}
	if d.TaskID != "" {
		e.TaskID = d.TaskID
	}
}

// replayStream plays the recorded SSE events at their recorded offsets
// and journals each one it wrote; it returns how the stream ended.
func (rp *Replayer) replayStream(w http.ResponseWriter, r *http.Request, x *record.Exchange, id json.RawMessage, begin time.Time, base server.Entry) string {
	// A stream is replayed with status 200, as sse.Writer sends; agents
	// answer streams with anything else so rarely that it is not worth a
	// second framing path.
	sw := sse.NewWriter(w)
	if err := sw.WriteHeader(); err != nil {
		return "client gone"
	}
	return rp.playStream(r, x, begin, base, streamOut{
		data: func(ev record.Event) ([]byte, bool) {
			if len(ev.Data) > 0 {
				return record.WithID(ev.Data, id), true
			}
			return []byte(ev.Text), true
		},
		write: func(ev record.Event, data []byte) error {
			return sw.Event(sse.Event{ID: ev.ID, Name: ev.Name, Data: data})
		},
		raw:    func(b []byte) { _ = sw.WriteRaw(b) },
		finish: func() string { return "ended as recorded: " + string(x.End) },
		unit:   "frame",
	})
}

// streamOut is how a recorded stream goes out on its binding: SSE events
// or gRPC messages.
type streamOut struct {
	// data is what event ev carries, as the journal reads it and write
	// sends it; false leaves ev out (nothing of it can be sent).
	data func(ev record.Event) ([]byte, bool)
	// write sends event ev; an error is the client gone.
	write func(ev record.Event, data []byte) error
	// raw writes bytes as they are: the start of a cut frame.
	raw func(b []byte)
	// finish ends the stream as the agent did and says how.
	finish func() string
	// unit is what a cut cuts ("frame", "message").
	unit string
}

// playStream plays the recorded events of x at their recorded offsets
// through out, journaling the agent's event and what the client got, and
// the splice's fault; it returns how the stream ended.
func (rp *Replayer) playStream(r *http.Request, x *record.Exchange, begin time.Time, base server.Entry, out streamOut) string {
	sp := rp.opts.Splice
	for n, ev := range x.Events {
		if !rp.wait(r.Context(), begin, ev.After) {
			return "client gone"
		}
		data, ok := out.data(ev)
		if !ok {
			continue
		}
		// As on a stream the engine plays: the agent's event (what the
		// recorded agent did to the task), then what the client got.
		agentEv := server.Entry{Agent: base.Agent, Kind: server.EntryEvent}
		describeAnswer(&agentEv, data)
		if agentEv.State == "" && agentEv.ErrorCode == 0 {
			agentEv.Detail = "event " + strconv.Itoa(n) + " as recorded"
		}
		rp.srv.Append(agentEv)
		delivered := base
		delivered.Kind, delivered.TaskID, delivered.State, delivered.ErrorCode, delivered.Detail =
			server.EntryStreamEvent, agentEv.TaskID, agentEv.State, agentEv.ErrorCode, agentEv.Detail
		if sp != nil && sp.At == n {
			delivered.Kind, delivered.Behaviors = server.EntryWithheld, []string{sp.String()}
			rp.srv.Append(delivered)
			switch sp.Fault {
			case FaultEndStream:
				out.finish()
				return "closed by behavior: " + sp.String()
			case FaultHang:
				rp.hold(r)
				return "held open until client left: " + sp.String()
			case FaultDrop:
				continue
			}
		}
		if err := out.write(ev, data); err != nil {
			return "client gone"
		}
		rp.srv.Append(delivered)
	}
	if !rp.wait(r.Context(), begin, x.EndAfter) {
		return "client gone"
	}
	switch x.End {
	case record.EndTruncated:
		out.raw([]byte(x.Tail))
		cut := base
		cut.Kind, cut.Detail = server.EntryWithheld, fmt.Sprintf("cut mid-%s as recorded: %d bytes written", out.unit, len(x.Tail))
		rp.srv.Append(cut)
		return "ended mid-" + out.unit + " as recorded"
	case record.EndClientGone, record.EndOpen:
		rp.hold(r)
		return "held open until client left, as recorded"
	}
	return out.finish()
}
