package ui_test

import (
	"testing"

	"github.com/a2amock/a2amock/ui"
)

// FuzzCheck feeds files to ui.Check, which a2amock report runs on what it
// is given (a saved journal or a conform report): it says what the file is
// or why it is neither, and never panics.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"entries":[{"seq":1,"time":"2026-01-01T00:00:00Z","agent":"a","kind":"request","method":"SendMessage","request":1}]}`))
	f.Add([]byte(`[{"seq":1,"kind":"event","taskId":"t","state":"working"}]`))
	f.Add([]byte(`{"schema":"https://a2amock.dev/schemas/conform-report","version":1,"scenarios":[{"id":"s","pass":true,"checks":[],"journalEntries":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ui.Check(data)
	})
}
