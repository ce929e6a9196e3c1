package report

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

var updateEvidence = flag.Bool("update-evidence", false, "rewrite testdata/evidence-cells.json from the Go formatting")

// evidenceCellsPath pins the evidence tables' cells for the Markdown
// summary (here) and the HTML report (ui/e2e/ui.test.mjs reads it, renders
// the records with ui/assets/app.js and compares): the two are written
// once in Go and once in JS.
const evidenceCellsPath = "testdata/evidence-cells.json"

// evidenceCells is the golden file: records and the cells of their rows.
type evidenceCells struct {
	Wire         []judge.WireRecord `json:"wire"`
	WireCells    [][]string         `json:"wireCells"`
	Journal      []server.Entry     `json:"journal"`
	JournalCells [][]string         `json:"journalCells"`
}

// goldenEvidence is every kind of record the tables word differently.
func goldenEvidence() ([]judge.WireRecord, []server.Entry) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var ws []judge.WireRecord
	for i, w := range []judge.WireRecord{
		{Method: "GET", Path: "/.well-known/agent-card.json", Status: 200, VersionSent: true, A2AVersion: "1.0", JournalSeq: 1},
		{Method: "POST", Path: "/", RPCMethod: "SendMessage", Status: 200, VersionSent: true, Request: 1},
		{Method: "POST", Path: "/", RPCMethod: "message/send", Status: 503, RetryAfter: "2"},
		{Method: "POST", Path: "/agents/b/", RPCMethod: "SendMessage", VersionSent: true, A2AVersion: "1.0", Hijacked: true, Faulted: true},
		{Method: "POST", Path: "/rest/message:stream", Open: true, VersionSent: true, A2AVersion: "1.0"},
		{Method: "POST", Path: "/rest/message:stream", Status: 200, Open: true},
		{Method: "POST", Path: "/lf.a2a.v1.A2AService/SendMessage", RPCMethod: "SendMessage", GRPC: true, Status: 200, Tenant: "b", GRPCStatus: 14, RetryAfter: "3"},
		{Method: "POST", Path: "/lf.a2a.v1.A2AService/GetTask", RPCMethod: "GetTask", GRPC: true, Status: 200, VersionSent: true, A2AVersion: "1.0", Request: 2},
		{Method: "POST", Path: "/a2a.v1.A2AService/SendStreamingMessage", RPCMethod: "SendStreamingMessage", GRPC: true, Status: 200, Faulted: true, GRPCNoStatus: true},
		{Method: "POST", Path: "/lf.a2a.v1.A2AService/SubscribeToTask", RPCMethod: "SubscribeToTask", GRPC: true, Status: 200, Open: true},
	} {
		w.Seq, w.Agent, w.Start, w.End = i+1, []string{"a", "b"}[i%2], at(100*i), at(100*i+7)
		ws = append(ws, w)
	}
	es := []server.Entry{
		{Seq: 3, Agent: "a", Kind: server.EntryRequest, Method: "SendMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC, Request: 1, RefTaskID: "t0", ContextID: "c1"},
		{Seq: 4, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateWorking},
		{Seq: 5, Agent: "b", Kind: server.EntryResponse, Method: "GetTask", Dialect: wire.V03, Binding: wire.BindingGRPC, Request: 2, TaskID: "t1", ErrorCode: -32001, HTTP: 404,
			Behaviors: []string{"forget-task"}, Detail: "task t1 is not held"},
		{Seq: 6, Agent: "b", Kind: server.EntryCard, Path: "/.well-known/agent-card.json"},
		{Seq: 7, Agent: "a", Kind: server.EntryDecision, Op: wire.OpCancelTask, TaskID: "t2", State: wire.StateCanceled},
	}
	return ws, es
}

// TestEvidenceCellsGolden: the Go rows of every kind of record are the
// golden file's (go test -run TestEvidenceCellsGolden -update-evidence
// rewrites it; the UI's e2e test then holds app.js to it).
func TestEvidenceCellsGolden(t *testing.T) {
	ws, es := goldenEvidence()
	fresh := evidenceCells{Wire: ws, Journal: es}
	for _, w := range ws {
		fresh.WireCells = append(fresh.WireCells, wireCells(w, ws[0].Start))
	}
	for _, e := range es {
		fresh.JournalCells = append(fresh.JournalCells, journalCells(e))
	}
	if *updateEvidence {
		b, err := json.MarshalIndent(fresh, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(evidenceCellsPath, append(b, '\n'), 0o644))
	}
	raw, err := os.ReadFile(evidenceCellsPath)
	require.NoError(t, err, "go test ./conform/internal/report -run TestEvidenceCellsGolden -update-evidence writes it")
	var golden evidenceCells
	require.NoError(t, json.Unmarshal(raw, &golden))
	assert.Equal(t, fresh.WireCells, golden.WireCells)
	assert.Equal(t, fresh.JournalCells, golden.JournalCells)
	require.Len(t, golden.Wire, len(ws))
	for i := range ws {
		assert.Equal(t, wireCells(ws[i], ws[0].Start), wireCells(golden.Wire[i], golden.Wire[0].Start), "record %d read back from the file", i+1)
	}
}
