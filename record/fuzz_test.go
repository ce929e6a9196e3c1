package record_test

import (
	"bytes"
	"testing"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
)

// FuzzLoad feeds recording files (JSON or YAML) to Load, and what loads to
// replay.New: whatever the input, each returns its value or an error, and
// never panics.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"upstream":"http://127.0.0.1:9","exchanges":[` +
		`{"kind":"card","method":"GET","httpMethod":"GET","path":"/.well-known/agent-card.json","at":"0s","status":200,"contentType":"application/json","response":{"name":"a"}},` +
		`{"kind":"jsonrpc","method":"SendMessage","httpMethod":"POST","path":"/","at":"10ms","request":{"jsonrpc":"2.0","id":1,"method":"SendMessage"},"status":200,"response":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}},` +
		`{"kind":"jsonrpc","method":"SendStreamingMessage","httpMethod":"POST","path":"/","at":"20ms","status":200,"contentType":"text/event-stream","events":[{"after":"1ms","data":{"jsonrpc":"2.0","id":2,"result":{"task":{"id":"t"}}}}],"end":"eof"}]}`))
	f.Add([]byte("version: 1\nupstream: http://127.0.0.1:9\nexchanges:\n  - kind: rest\n    method: POST\n    httpMethod: POST\n    path: /message:send\n    at: 1s\n    status: 503\n    body: busy\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := record.Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		if rp, err := replay.New(rec, replay.Options{}); err == nil {
			rp.Close()
		}
	})
}
