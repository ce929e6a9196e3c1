package codecv10

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// The oracle: what the codec wrote before append.go, the v1.0 wire structs
// (field order the proto's, omitempty as ProtoJSON) marshalled by
// encoding/json. append.go must write the same bytes.

type v10Part struct {
	Text      *string        `json:"text,omitempty"`
	Raw       *string        `json:"raw,omitempty"`
	URL       *string        `json:"url,omitempty"`
	Data      any            `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Filename  string         `json:"filename,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
}

type v10Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []v10Part      `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

type v10Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []v10Part      `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

type v10Task struct {
	ID        string                      `json:"id"`
	ContextID string                      `json:"contextId,omitempty"`
	Status    wirejson.Status[v10Message] `json:"status"`
	Artifacts []v10Artifact               `json:"artifacts,omitempty"`
	History   []v10Message                `json:"history,omitempty"`
	Metadata  map[string]any              `json:"metadata,omitempty"`
}

type v10StatusUpdate struct {
	TaskID    string                      `json:"taskId"`
	ContextID string                      `json:"contextId"`
	Status    wirejson.Status[v10Message] `json:"status"`
	Metadata  map[string]any              `json:"metadata,omitempty"`
}

type v10ArtifactUpdate struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  v10Artifact    `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// v10StreamResponse is both StreamResponse and, with only Task or Message
// set, SendMessageResponse.
type v10StreamResponse struct {
	Task           *v10Task           `json:"task,omitempty"`
	Message        *v10Message        `json:"message,omitempty"`
	StatusUpdate   *v10StatusUpdate   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *v10ArtifactUpdate `json:"artifactUpdate,omitempty"`
}

type v10ListTasks struct {
	Tasks         []v10Task `json:"tasks"`
	NextPageToken string    `json:"nextPageToken"`
	PageSize      int       `json:"pageSize"`
	TotalSize     int       `json:"totalSize"`
}

// v10EmptyData stands in for a data part without a value: ProtoJSON would
// write null, which most clients read as "no member set", leaving a part with
// no content.
var v10EmptyData = struct{}{}

func encodeParts10(parts []wire.Part) ([]v10Part, error) {
	out := make([]v10Part, len(parts))
	for i := range parts {
		p := &parts[i]
		w := &out[i]
		w.Metadata, w.Filename, w.MediaType = p.Metadata, p.Filename, p.MediaType
		switch p.Kind {
		case wire.PartText:
			w.Text = &p.Text
		case wire.PartFile:
			if p.URL != "" && p.Raw == nil {
				w.URL = &p.URL
			} else {
				// A file with bytes (even empty ones) is a raw part; when a
				// canonical part carries both, the bytes win, as they are
				// the content and the URL only a pointer to it.
				s := base64.StdEncoding.EncodeToString(p.Raw)
				w.Raw = &s
			}
		case wire.PartData:
			w.Data = p.Data
			if w.Data == nil {
				w.Data = v10EmptyData
			}
		default:
			return nil, fmt.Errorf("a2a: v1.0: part %d has unknown kind %q", i, p.Kind)
		}
	}
	return out, nil
}

func encodeMessage10(m *wire.Message) (v10Message, error) {
	parts, err := encodeParts10(m.Parts)
	if err != nil {
		return v10Message{}, err
	}
	return v10Message{
		MessageID:        m.MessageID,
		ContextID:        m.ContextID,
		TaskID:           m.TaskID,
		Role:             wire.RoleToV10(m.Role),
		Parts:            parts,
		Metadata:         m.Metadata,
		Extensions:       m.Extensions,
		ReferenceTaskIDs: m.ReferenceTaskIDs,
	}, nil
}

func encodeStatus10(s *wire.TaskStatus) (wirejson.Status[v10Message], error) {
	out := wirejson.Status[v10Message]{State: wire.StateToV10(s.State), Timestamp: wirejson.FormatTime(s.Timestamp)}
	if s.Message != nil {
		m, err := encodeMessage10(s.Message)
		if err != nil {
			return out, err
		}
		out.Message = &m
	}
	return out, nil
}

func encodeArtifact10(a *wire.Artifact) (v10Artifact, error) {
	parts, err := encodeParts10(a.Parts)
	if err != nil {
		return v10Artifact{}, err
	}
	return v10Artifact{
		ArtifactID:  a.ArtifactID,
		Name:        a.Name,
		Description: a.Description,
		Parts:       parts,
		Metadata:    a.Metadata,
		Extensions:  a.Extensions,
	}, nil
}

func encodeTask10(t *wire.Task) (v10Task, error) {
	status, err := encodeStatus10(&t.Status)
	if err != nil {
		return v10Task{}, err
	}
	out := v10Task{ID: t.ID, ContextID: t.ContextID, Status: status, Metadata: t.Metadata}
	if len(t.History) > 0 {
		out.History = make([]v10Message, len(t.History))
		for i := range t.History {
			if out.History[i], err = encodeMessage10(&t.History[i]); err != nil {
				return out, err
			}
		}
	}
	if len(t.Artifacts) > 0 {
		out.Artifacts = make([]v10Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			if out.Artifacts[i], err = encodeArtifact10(&t.Artifacts[i]); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

func oracleEvent(ev wire.Event) ([]byte, error) {
	var w v10StreamResponse
	switch {
	case ev.Task != nil:
		t, err := encodeTask10(ev.Task)
		if err != nil {
			return nil, err
		}
		w.Task = &t
	case ev.Message != nil:
		m, err := encodeMessage10(ev.Message)
		if err != nil {
			return nil, err
		}
		w.Message = &m
	case ev.Status != nil:
		s, err := encodeStatus10(&ev.Status.Status)
		if err != nil {
			return nil, err
		}
		w.StatusUpdate = &v10StatusUpdate{TaskID: ev.Status.TaskID, ContextID: ev.Status.ContextID,
			Status: s, Metadata: ev.Status.Metadata}
	case ev.Artifact != nil:
		a, err := encodeArtifact10(&ev.Artifact.Artifact)
		if err != nil {
			return nil, err
		}
		w.ArtifactUpdate = &v10ArtifactUpdate{TaskID: ev.Artifact.TaskID, ContextID: ev.Artifact.ContextID,
			Artifact: a, Append: ev.Artifact.Append, LastChunk: ev.Artifact.LastChunk, Metadata: ev.Artifact.Metadata}
	}
	return json.Marshal(&w)
}

func oraclePage(p *wire.TaskPage) ([]byte, error) {
	out := v10ListTasks{Tasks: make([]v10Task, 0, len(p.Tasks)), NextPageToken: p.NextPageToken, PageSize: p.PageSize, TotalSize: p.TotalSize}
	for _, t := range p.Tasks {
		if t == nil {
			continue
		}
		w, err := encodeTask10(t)
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, w)
	}
	return json.Marshal(&out)
}

// gen draws canonical values whose strings exercise every escape
// encoding/json makes (quotes, backslashes, control bytes, HTML, U+2028,
// invalid UTF-8, non-ASCII) and whose optional members are each sometimes
// empty, nil or set.
type gen struct{ r *rand.Rand }

var genStrings = []string{"", "a", "hello world", `say "hi"`, `back\slash`, "tab\tnew\nline\r", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "\u2028\u2029", "caf\u00e9 \u65e5\u672c", "\xff\xfe bad utf8", "\U0001F600", "2026-12-04T05:00:00Z"}

func (g gen) str() string {
	if g.r.IntN(4) == 0 {
		b := make([]byte, g.r.IntN(12))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return string(b)
	}
	return genStrings[g.r.IntN(len(genStrings))]
}

func (g gen) strs() []string {
	switch g.r.IntN(3) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, 1+g.r.IntN(3))
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g gen) value(depth int) any {
	switch n := g.r.IntN(8); {
	case n == 0 || depth > 2:
		return g.str()
	case n == 1:
		return g.r.Float64() * 1e6
	case n == 2:
		return g.r.IntN(2) == 0
	case n == 3:
		return nil
	case n == 4:
		return []any{g.value(depth + 1), g.value(depth + 1)}
	case n == 5:
		return map[string]any{}
	default:
		return g.meta(depth + 1)
	}
}

func (g gen) meta(depth int) map[string]any {
	switch g.r.IntN(3) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	}
	m := map[string]any{}
	for range 1 + g.r.IntN(3) {
		m[g.str()] = g.value(depth)
	}
	return m
}

func (g gen) parts() []wire.Part {
	if g.r.IntN(6) == 0 {
		return nil
	}
	out := make([]wire.Part, g.r.IntN(4))
	for i := range out {
		p := wire.Part{Metadata: g.meta(0), MediaType: g.pick("", "text/plain", "application/json"), Filename: g.pick("", "a.txt", "<x>.bin")}
		switch g.r.IntN(5) {
		case 0:
			p.Kind, p.Text = wire.PartText, g.str()
		case 1:
			p.Kind, p.URL = wire.PartFile, g.pick("https://example.example/f?a=1&b=2", "file:///tmp/x")
		case 2:
			p.Kind, p.Raw = wire.PartFile, []byte(g.str())
			if g.r.IntN(2) == 0 {
				p.URL = "https://example.example/both"
			}
		case 3:
			p.Kind, p.Data = wire.PartData, g.value(0)
		default:
			p.Kind, p.Raw = wire.PartFile, []byte{}
		}
		out[i] = p
	}
	return out
}

func (g gen) pick(ss ...string) string { return ss[g.r.IntN(len(ss))] }

func (g gen) message() wire.Message {
	return wire.Message{MessageID: g.str(), ContextID: g.str(), TaskID: g.str(),
		Role: []wire.Role{wire.RoleUser, wire.RoleAgent, ""}[g.r.IntN(3)], Parts: g.parts(),
		Metadata: g.meta(0), Extensions: g.strs(), ReferenceTaskIDs: g.strs()}
}

func (g gen) status() wire.TaskStatus {
	states := []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted, wire.StateInputRequired, wire.StateUnspecified, "bogus"}
	s := wire.TaskStatus{State: states[g.r.IntN(len(states))]}
	if g.r.IntN(3) > 0 {
		s.Timestamp = time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).In(time.FixedZone("x", 3600*(g.r.IntN(5)-2)))
	}
	if g.r.IntN(3) == 0 {
		m := g.message()
		s.Message = &m
	}
	return s
}

func (g gen) artifact() wire.Artifact {
	return wire.Artifact{ArtifactID: g.str(), Name: g.str(), Description: g.str(), Parts: g.parts(),
		Metadata: g.meta(0), Extensions: g.strs()}
}

func (g gen) task() *wire.Task {
	t := &wire.Task{ID: g.str(), ContextID: g.str(), Status: g.status(), Metadata: g.meta(0)}
	for range g.r.IntN(3) {
		t.Artifacts = append(t.Artifacts, g.artifact())
	}
	for range g.r.IntN(3) {
		t.History = append(t.History, g.message())
	}
	return t
}

func (g gen) event() wire.Event {
	switch g.r.IntN(4) {
	case 0:
		return wire.Event{Task: g.task()}
	case 1:
		m := g.message()
		return wire.Event{Message: &m}
	case 2:
		return wire.Event{Status: &wire.StatusUpdate{TaskID: g.str(), ContextID: g.str(), Status: g.status(), Final: g.r.IntN(2) == 0, Metadata: g.meta(0)}}
	}
	return wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: g.str(), ContextID: g.str(), Artifact: g.artifact(),
		Append: g.r.IntN(2) == 0, LastChunk: g.r.IntN(2) == 0, Metadata: g.meta(0)}}
}

// sameAsOracle checks the appender against the oracle on one input: the
// same bytes, or both an error.
func sameAsOracle(t *testing.T, what string, got []byte, gotErr error, want []byte, wantErr error) bool {
	t.Helper()
	if wantErr != nil || gotErr != nil {
		return assert.Equal(t, wantErr != nil, gotErr != nil, "%s: oracle error %v, appender error %v", what, wantErr, gotErr)
	}
	return assert.Equal(t, string(want), string(got), what)
}

// TestAppendMatchesEncodingJSON draws 20,000 random tasks, events and task
// pages and checks the codec writes exactly what encoding/json wrote of the
// wire structs.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for i := range 20_000 {
		ev := g.event()
		want, wantErr := oracleEvent(ev)
		got, gotErr := Codec.EncodeEvent(ev)
		if !sameAsOracle(t, fmt.Sprintf("event %d", i), got, gotErr, want, wantErr) {
			return
		}
		if ev.Task != nil {
			wantT, errT := encodeTask10(ev.Task)
			wantB, errB := json.Marshal(&wantT)
			if errT != nil {
				errB = errT
			}
			got, gotErr := Codec.EncodeResult(wire.OpGetTask, &wire.Result{Task: ev.Task})
			if !sameAsOracle(t, fmt.Sprintf("GetTask result %d", i), got, gotErr, wantB, errB) {
				return
			}
			got, gotErr = Codec.EncodeResult(wire.OpSend, &wire.Result{Task: ev.Task})
			if !sameAsOracle(t, fmt.Sprintf("send result %d", i), got, gotErr, want, wantErr) {
				return
			}
		}
		if i%10 == 0 {
			page := &wire.TaskPage{NextPageToken: g.str(), PageSize: g.r.IntN(101), TotalSize: g.r.IntN(1e6)}
			for range g.r.IntN(4) {
				page.Tasks = append(page.Tasks, g.task(), nil)
			}
			want, wantErr := oraclePage(page)
			got, gotErr := Codec.EncodeResult(wire.OpListTasks, &wire.Result{Page: page})
			if !sameAsOracle(t, fmt.Sprintf("page %d", i), got, gotErr, want, wantErr) {
				return
			}
		}
	}
}

// TestAppendErrors checks what encoding/json refuses is refused: a part of
// no known kind, metadata or data that is not JSON.
func TestAppendErrors(t *testing.T) {
	t.Parallel()
	for name, task := range map[string]*wire.Task{
		"unknown part kind": {ID: "t", Artifacts: []wire.Artifact{{ArtifactID: "a", Parts: []wire.Part{{Kind: "hologram"}}}}},
		"NaN metadata":      {ID: "t", Metadata: map[string]any{"x": math.NaN()}},
		"func data":         {ID: "t", History: []wire.Message{{MessageID: "m", Parts: []wire.Part{{Kind: wire.PartData, Data: func() {}}}}}},
		"channel in status": {ID: "t", Status: wire.TaskStatus{Message: &wire.Message{Metadata: map[string]any{"c": make(chan int)}}}},
	} {
		_, err := Codec.EncodeResult(wire.OpSend, &wire.Result{Task: task})
		assert.Error(t, err, name)
		_, oracleErr := oracleEvent(wire.Event{Task: task})
		assert.Error(t, oracleErr, name)
	}
	_, err := Codec.EncodeResult(wire.OpSend, &wire.Result{})
	require.Error(t, err)
}

// FuzzAppendTask builds a task from the fuzzer's strings and bytes and
// checks the appender against the oracle.
func FuzzAppendTask(f *testing.F) {
	for _, s := range genStrings {
		f.Add(s, []byte(s), int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, raw []byte, ts int64) {
		task := &wire.Task{ID: s, ContextID: s, Status: wire.TaskStatus{State: wire.StateWorking, Timestamp: time.Unix(0, ts)},
			Artifacts: []wire.Artifact{{ArtifactID: s, Name: s, Parts: []wire.Part{{Kind: wire.PartText, Text: s, MediaType: s},
				{Kind: wire.PartFile, Raw: raw, Filename: s}, {Kind: wire.PartData, Data: map[string]any{s: s}}}}},
			History:  []wire.Message{{MessageID: s, Role: wire.RoleUser, Parts: []wire.Part{{Kind: wire.PartFile, URL: s}}, Extensions: []string{s}}},
			Metadata: map[string]any{s: []any{s, ts}},
		}
		want, wantErr := oracleEvent(wire.Event{Task: task})
		got, gotErr := Codec.EncodeEvent(wire.Event{Task: task})
		sameAsOracle(t, "fuzzed task", got, gotErr, want, wantErr)
	})
}

// BenchmarkEncodeSendResult is an honest send's answer: the appender
// against the oracle it replaced.
func BenchmarkEncodeSendResult(b *testing.B) {
	ts := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	task := &wire.Task{ID: "5e76bd4e-aed4-492e-aa23-1d429689bff5", ContextID: "8d1c4bca-9b26-4af3-9ed8-9bac156bbe39",
		Status:    wire.TaskStatus{State: wire.StateCompleted, Timestamp: ts},
		Artifacts: []wire.Artifact{{ArtifactID: "a080678d-6b05-4b21-bce0-d8dca67f76e5", Name: "deconstruct-sensor-result", Parts: []wire.Part{wire.TextPart("Deconstruct sensor: Its seldom someone her that say this east several since everything chest.")}}},
		History:   []wire.Message{{MessageID: "m1", ContextID: "8d1c4bca-9b26-4af3-9ed8-9bac156bbe39", TaskID: "5e76bd4e-aed4-492e-aa23-1d429689bff5", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hello")}}},
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Codec.EncodeResult(wire.OpSend, &wire.Result{Task: task}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oracleEvent(wire.Event{Task: task}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAppendResultIsEncodeResult: what AppendResult and AppendEvent append
// after what is already in the buffer is what EncodeResult and EncodeEvent
// return, for every unary op.
func TestAppendResultIsEncodeResult(t *testing.T) {
	t.Parallel()
	g := gen{rand.New(rand.NewPCG(11, 12))}
	prefix := []byte(`{"jsonrpc":"2.0","id":7,"result":`)
	for i := range 2_000 {
		task := g.task()
		m := g.message()
		results := map[wire.Op][]*wire.Result{
			wire.OpSend:            {{Task: task}, {Message: &m}, {}, {Task: task, Message: &m}},
			wire.OpGetTask:         {{Task: task}, {}},
			wire.OpCancelTask:      {{Task: task}},
			wire.OpListTasks:       {{Page: &wire.TaskPage{Tasks: []*wire.Task{task}, PageSize: 1}}},
			wire.OpSetPushConfig:   {{PushConfig: &wire.PushConfig{URL: "https://example.example/h", AuthSchemes: []string{"Bearer"}}}},
			wire.OpListPushConfigs: {{PushConfigs: []wire.PushConfig{{URL: "https://example.example/h"}}}},
			wire.OpDeletePush:      {{Empty: true}},
			wire.OpExtendedCard:    {{Card: []byte(`{"name":"x"}`)}, {}},
			wire.OpSubscribe:       {{Task: task}},
		}
		for op, rs := range results {
			for _, res := range append(rs, nil) {
				want, wantErr := Codec.EncodeResult(op, res)
				got, gotErr := Codec.(wire.ResultAppender).AppendResult(slices.Clone(prefix), op, res)
				if wantErr != nil || gotErr != nil {
					assert.Equal(t, wantErr != nil, gotErr != nil, "input %d %s: %v / %v", i, op, wantErr, gotErr)
					continue
				}
				assert.Equal(t, string(prefix)+string(want), string(got), "input %d %s", i, op)
			}
		}
		ev := g.event()
		for _, e := range []wire.Event{ev, {}, {Task: task, Message: &m}} {
			want, wantErr := Codec.EncodeEvent(e)
			got, gotErr := Codec.(wire.ResultAppender).AppendEvent(slices.Clone(prefix), e)
			if wantErr != nil || gotErr != nil {
				assert.Equal(t, wantErr != nil, gotErr != nil, "event %d", i)
				continue
			}
			assert.Equal(t, string(prefix)+string(want), string(got), "event %d", i)
		}
		if t.Failed() {
			return
		}
	}
}
