package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay/internal/canon"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// plan is how one recorded exchange is replayed: through the engine (raw
// empty) or as the recorded bytes (raw says why).
type plan struct {
	idx int
	raw string
	op  wire.Op
	// ans is the recorded answer of a unary exchange (nil when it was not
	// decoded: the engine's own answer stands).
	ans *canon.Answer
	// send is set for SendMessage and SendStreamingMessage.
	send *sendPlan
}

// sendPlan is a recorded send as the engine plays it: the decision, the
// timeline with the observed timings, and the recorded values that replace
// the engine's renderings of the same states.
type sendPlan struct {
	decision timeline.Decision
	tl       timeline.Timeline
	// events are the recorded stream events, in order.
	events []wire.Event
	// immediate: the agent answered before the task settled, after delay.
	immediate bool
	delay     time.Duration
	// tail is the start of a frame the stream was cut in (EndTruncated).
	tail   string
	taskID string
}

// obs is one recorded observation of a task: a state or an artifact the
// agent reported at time at (from the start of the recording).
type obs struct {
	at  time.Duration
	ev  wire.Event
	idx int
}

// isJSON reports whether a content type is JSON.
func isJSON(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	ct = strings.TrimSpace(strings.ToLower(ct))
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}

// makePlans decides for every recorded exchange how it is replayed, and
// turns the recorded sends into decisions and timelines: the states and
// artifacts each task went through, at the times they were observed (in the
// send's own answer, then in the polls and subscriptions that followed it
// until the next message to the task). scale turns a recorded delay into a
// replay delay; card is the replayed agent's card.
func makePlans(rec *record.Recording, card *cards.Card, scale func(time.Duration) time.Duration) []*plan {
	plans := make([]*plan, len(rec.Exchanges))
	byTask := map[string][]obs{}
	for i := range rec.Exchanges {
		x := &rec.Exchanges[i]
		p := &plan{idx: i}
		plans[i] = p
		rd, unread := canon.ReaderOf(x)
		op := rd.Op
		p.op = op
		if unread == nil {
			unread = rd.ServedFor(card)
		}
		switch {
		case x.Unanswered():
			p.raw = "the agent had not answered when the recording was taken"
			continue
		case x.Kind == record.KindCard:
			p.raw = "a card is served as the agent wrote it (the model would render it anew)"
			continue
		case op == "":
			p.raw = "not an operation the engine serves"
			continue
		case x.Status != http.StatusOK:
			p.raw = fmt.Sprintf("answered with HTTP %d", x.Status)
			continue
		case x.Kind == record.KindGRPC && !record.IsGRPCContentType(x.ContentType):
			p.raw = fmt.Sprintf("answered with %q, not gRPC", x.ContentType)
			continue
		case x.Kind == record.KindGRPC && x.GRPCStatus != 0:
			p.raw = fmt.Sprintf("answered with gRPC status %d", x.GRPCStatus)
			continue
		case x.Kind == record.KindGRPC && x.End == record.EndOpen:
			p.raw = "the call was still open, with no status yet, when the recording was taken"
			continue
		case x.Kind == record.KindGRPC && x.End != "" && x.End != record.EndEOF:
			p.raw = fmt.Sprintf("the call ended without its status (%s)", x.End)
			continue
		case unread != nil:
			p.raw = unread.Error()
			continue
		}
		if x.Streamed() {
			if !isStreamOp(op) {
				p.raw = "an event stream answered a unary operation"
				continue
			}
			var evs []wire.Event
			for k, e := range x.Events {
				if e.ID != "" || e.Name != "" || len(e.Data) == 0 {
					p.raw = fmt.Sprintf("event %d carries SSE fields or text the engine does not write", k)
					break
				}
				a, err := rd.Decode(e.Data, true)
				if err != nil || a.Err != nil {
					p.raw = fmt.Sprintf("event %d: %s", k, errText(err, a))
					break
				}
				evs = append(evs, a.Event)
				if t := a.Event.TaskID(); t != "" && op == wire.OpSubscribe {
					byTask[t] = append(byTask[t], obs{at: time.Duration(x.At + e.After), ev: a.Event, idx: i})
				}
			}
			if p.raw == "" && op == wire.OpStream {
				p.send = &sendPlan{events: evs}
			}
			continue
		}
		if x.Kind != record.KindGRPC && !isJSON(x.ContentType) || len(x.Response) == 0 {
			p.raw = "the answer is not JSON"
			continue
		}
		if isStreamOp(op) {
			// A JSON answer to a streaming request (an error before the
			// stream, or a plain body): the engine refuses streams with an
			// SSE error event, so the recorded bytes are replayed.
			p.raw = "a streaming request answered with a JSON body"
			continue
		}
		if op != wire.OpSend && op != wire.OpGetTask && op != wire.OpCancelTask {
			// Pages, push configs, extended cards: the engine answers
			// from its own state; only errors are replayed as recorded.
			if a, err := rd.Decode(x.Response, false); err == nil && a.Err != nil {
				p.ans = &a
			}
			continue
		}
		a, err := rd.Decode(x.Response, false)
		if err != nil {
			if op == wire.OpSend {
				p.raw = err.Error()
			}
			continue
		}
		p.ans = &a
		if op == wire.OpSend {
			p.send = &sendPlan{}
		} else if a.Event.Task != nil && op == wire.OpGetTask {
			t := a.Event.Task
			byTask[t.ID] = append(byTask[t.ID], obs{at: time.Duration(x.At + x.HeadersAfter), ev: a.Event, idx: i})
		}
	}
	known := map[string]bool{}
	for i, p := range plans {
		if p.send == nil {
			continue
		}
		x := &rec.Exchanges[i]
		if !planSend(rec, p, x, known, byTask, scale) {
			p.send = nil
			if p.raw == "" {
				p.raw = "the answer does not start or continue a task the way the engine does"
			}
		}
	}
	return plans
}

func isStreamOp(op wire.Op) bool { return op == wire.OpStream || op == wire.OpSubscribe }

func errText(err error, a canon.Answer) string {
	if err != nil {
		return err.Error()
	}
	return "an error inside the stream"
}

// planSend fills in the decision and timeline of a recorded send; false
// when the engine cannot play it.
func planSend(rec *record.Recording, p *plan, x *record.Exchange, known map[string]bool, byTask map[string][]obs, scale func(time.Duration) time.Duration) bool {
	sp := p.send
	rpc := x.Kind == record.KindJSONRPC
	refTask, _, _ := canon.RequestMessage(x.Request, rpc)
	begin := time.Duration(x.At)
	reason := fmt.Sprintf("replay of recorded exchange %d", p.idx)
	var tl timeline.Timeline
	// last is the time of the last step, on the recording's clock.
	last := begin
	step := func(at time.Duration, s timeline.Step) {
		if at < last {
			at = last
		}
		s.After = scale(at - last)
		last = at
		tl = append(tl, s)
	}
	var task string
	var state wire.TaskState
	seen := map[string]wire.Artifact{}
	switch {
	case x.Streamed():
		evs := sp.events
		if len(evs) == 0 {
			return false
		}
		if m := evs[0].Message; m != nil {
			if len(evs) > 1 {
				return false
			}
			sp.decision = timeline.Decision{Kind: timeline.DecideMessage, Reason: reason}
			return true
		}
		t := evs[0].Task
		if t == nil {
			return false
		}
		task = t.ID
		cont := refTask != "" && known[refTask]
		if cont && refTask != task || !cont && t.Status.State != wire.StateSubmitted {
			return false
		}
		for k, ev := range evs {
			at := begin + time.Duration(x.Events[k].After)
			switch {
			case k == 0:
				step(at, timeline.Step{Kind: timeline.StepState, State: t.Status.State, Message: t.Status.Message.Text()})
				state = t.Status.State
			case ev.Status != nil:
				s := timeline.Step{Kind: timeline.StepState, State: ev.Status.Status.State, Message: ev.Status.Status.Message.Text()}
				if ev.Status.TaskID != task {
					s.TaskID = ev.Status.TaskID
				}
				if ev.Status.ContextID != t.ContextID {
					s.ContextID = ev.Status.ContextID
				}
				if s.TaskID == "" {
					state = s.State
				}
				final := ev.Status.Final
				s.Final = &final
				step(at, s)
			case ev.Artifact != nil:
				art := ev.Artifact.Artifact
				s := timeline.Step{Kind: timeline.StepArtifact, Artifact: &art, Append: ev.Artifact.Append, LastChunk: ev.Artifact.LastChunk}
				if ev.Artifact.TaskID != task {
					s.TaskID = ev.Artifact.TaskID
				}
				if ev.Artifact.ContextID != t.ContextID {
					s.ContextID = ev.Artifact.ContextID
				}
				seen[art.ArtifactID] = art
				step(at, s)
			default:
				return false
			}
		}
		lastEv := evs[len(evs)-1]
		ended := lastEv.Status != nil && lastEv.Status.TaskID == task &&
			(lastEv.Status.Final || lastEv.State().Terminal() || lastEv.State().Interrupted())
		if k := len(evs) - 1; k == 0 {
			ended = state.Terminal() || state.Interrupted()
		}
		end := begin + time.Duration(x.EndAfter)
		switch x.End {
		case record.EndEOF, record.EndError:
			if !ended {
				step(end, timeline.Step{Kind: timeline.StepEndStream})
			}
		case record.EndClientGone, record.EndOpen:
			if ended {
				// Hold the stream open past its last event, as the agent did.
				hold := timeline.Step{Kind: timeline.StepHoldStream}
				tl = append(tl[:len(tl)-1], hold, tl[len(tl)-1])
			}
		case record.EndTruncated:
			sp.tail = x.Tail
		}
		if cont {
			sp.decision = timeline.Decision{Kind: timeline.DecideContinue, TaskID: task, ContextID: t.ContextID, Reason: reason}
		} else {
			sp.decision = timeline.Decision{Kind: timeline.DecideNew, TaskID: task, ContextID: t.ContextID, Reason: reason}
		}
	default:
		a := p.ans
		switch {
		case a.Err != nil:
			sp.decision = timeline.Decision{Kind: timeline.DecideReject, Err: a.Err, Reason: reason}
			return true
		case a.Event.Message != nil:
			sp.decision = timeline.Decision{Kind: timeline.DecideMessage, Reason: reason}
			return true
		}
		t := a.Event.Task
		task = t.ID
		cont := refTask != "" && known[refTask]
		if cont && refTask != task {
			return false
		}
		answered := begin + time.Duration(x.HeadersAfter)
		state = t.Status.State
		if !state.Terminal() && !state.Interrupted() {
			// The agent answered before the task settled: the engine answers
			// at the same time with the same state, and plays the rest.
			sp.immediate, sp.delay = true, scale(time.Duration(x.HeadersAfter))
			begin, last = answered, answered
		}
		if !cont && state != wire.StateSubmitted {
			step(begin, timeline.Step{Kind: timeline.StepState, State: wire.StateSubmitted})
		}
		for _, art := range t.Artifacts {
			art := art
			seen[art.ArtifactID] = art
			step(answered, timeline.Step{Kind: timeline.StepArtifact, Artifact: &art, LastChunk: true})
		}
		step(answered, timeline.Step{Kind: timeline.StepState, State: state, Message: t.Status.Message.Text()})
		if cont {
			sp.decision = timeline.Decision{Kind: timeline.DecideContinue, TaskID: task, ContextID: t.ContextID, Reason: reason}
		} else {
			sp.decision = timeline.Decision{Kind: timeline.DecideNew, TaskID: task, ContextID: t.ContextID, Reason: reason}
		}
	}
	known[task] = true
	sp.taskID = task
	// Then what polls and subscriptions saw of the task, until the next
	// message to it.
	answeredAt := last
	until := time.Duration(1<<63 - 1)
	for j := p.idx + 1; j < len(rec.Exchanges); j++ {
		y := &rec.Exchanges[j]
		if _, op, _ := canon.DialectOf(y); op == wire.OpSend || op == wire.OpStream || op == wire.OpCancelTask {
			ref, _, _ := canon.RequestMessage(y.Request, y.Kind == record.KindJSONRPC)
			if ref == task || op == wire.OpCancelTask && canon.RequestTaskID(y.Kind, y.Path, y.Request) == task {
				until = time.Duration(y.At)
				break
			}
		}
	}
	later := byTask[task]
	sort.SliceStable(later, func(a, b int) bool { return later[a].at < later[b].at })
	first := true
	for _, o := range later {
		if o.at <= answeredAt || o.at >= until || o.idx == p.idx {
			continue
		}
		var arts []wire.Artifact
		var st wire.TaskState
		switch {
		case o.ev.Task != nil:
			arts, st = o.ev.Task.Artifacts, o.ev.Task.Status.State
		case o.ev.Status != nil:
			st = o.ev.Status.Status.State
		case o.ev.Artifact != nil:
			arts = []wire.Artifact{o.ev.Artifact.Artifact}
		}
		for _, art := range arts {
			if prev, ok := seen[art.ArtifactID]; ok && jsonSame(prev, art) {
				continue
			}
			art := art
			seen[art.ArtifactID] = art
			step(o.at, timeline.Step{Kind: timeline.StepArtifact, Artifact: &art, LastChunk: true})
			first = nudge(tl, first, sp.immediate)
		}
		if st != "" && st != state {
			state = st
			step(o.at, timeline.Step{Kind: timeline.StepState, State: st})
			first = nudge(tl, first, sp.immediate)
		}
	}
	sp.tl = tl
	return true
}

// nudge keeps the first step after an immediate answer off the answer
// itself (a replay without waiting would otherwise play it before the
// answer is taken).
func nudge(tl timeline.Timeline, first, immediate bool) bool {
	if first && immediate && tl[len(tl)-1].After <= 0 {
		tl[len(tl)-1].After = time.Microsecond
	}
	return false
}

func jsonSame(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
