package ui_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/ui"
)

const journal = `{"entries":[
{"seq":1,"time":"2026-01-01T00:00:00Z","agent":"w3","kind":"request","method":"message/send","request":1},
{"seq":2,"time":"2026-01-01T00:00:00.1Z","agent":"w3","kind":"event","taskId":"t1","state":"working","request":1},
{"seq":3,"time":"2026-01-01T00:00:01Z","agent":"w3","kind":"request","method":"message/send","request":2,"refTaskId":"t1","detail":"</script><script>alert(1)</script>"},
{"seq":4,"time":"2026-01-01T00:00:01.1Z","agent":"w3","kind":"decision","taskId":"t2","refTaskId":"t1","request":2,"behaviors":["new-task-id-on-continuation"]}
]}`

func TestWriteReportJournal(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, ui.WriteReport(&buf, []byte(journal), ""))
	page := buf.String()
	assert.Contains(t, page, `"mode":"report"`)
	assert.Contains(t, page, `"taskId":"t2"`)
	assert.Contains(t, page, "new-task-id-on-continuation")
	// The journal's text cannot end the data block or start a script.
	assert.NotContains(t, page, "</script><script>alert")
	assert.Equal(t, 2, strings.Count(page, "</script>"), "only the page's own two script elements end")
	// Self-contained: no URL the page would fetch.
	for _, ref := range []string{"src=\"http", "href=\"http", "@import", "url(http"} {
		assert.NotContains(t, page, ref)
	}
	assert.Contains(t, page, "default-src 'none'")
}

func TestPageWeight(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, ui.WriteLive(&buf))
	assert.Less(t, buf.Len(), 300_000, "page and scripts under 300 KB")
	t.Logf("live page: %d bytes", buf.Len())
}

func TestCheckBadInput(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"not JSON", "hello", "not JSON"},
		{"truncated", journal[:len(journal)/2], "truncated"},
		{"other object", `{"agents":[]}`, "neither a journal"},
		{"entries not entries", `{"entries":[{"foo":1}]}`, "no seq or kind"},
		{"entries wrong type", `{"entries":{"seq":1}}`, "not a list of journal entries"},
		{"other schema", `{"schema":"https://example.com/x"}`, "not a conform report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ui.Check([]byte(tc.in))
			var ue *ui.Error
			require.True(t, errors.As(err, &ue), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Error(t, ui.WriteReport(&bytes.Buffer{}, []byte(tc.in), ""))
		})
	}
	k, err := ui.Check([]byte(`[{"seq":1,"kind":"card"}]`))
	require.NoError(t, err)
	assert.Equal(t, ui.KindJournal, k)
	k, err = ui.Check([]byte(`{"schema":"` + ui.ConformSchema + `","version":1,"scenarios":[]}`))
	require.NoError(t, err)
	assert.Equal(t, ui.KindConform, k)
}

// TestCheckSaysWhere: a report input that does not decode is refused with
// the line and column of the fault in the whole file, leading blank lines
// and the entries' place in the document included.
func TestCheckSaysWhere(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"not JSON", "\n\n  nope", 3, 4, "not JSON: invalid character 'o'"},
		{"a trailing comma", `{"entries": [{"seq":1,"kind":"card"}], }`, 1, 40, "invalid character '}'"},
		{"truncated", "{\n\"entries\": [", 2, 13, "the JSON ends early"},
		{"a seq of the wrong type", "{\n \"entries\": [\n  {\"seq\": 1, \"kind\": \"card\"},\n  {\"seq\": \"two\", \"kind\": \"card\"}\n ]\n}\n", 4, 15, "a string where int64 belongs"},
		{"a bare list", "[{\"seq\": true}]", 1, 13, "a bool where int64 belongs"},
		{"a bare list cut short, then a newline", "[{\"seq\":1,\"kind\":\"card\"},\n", 1, 26, "the JSON ends early"},
	} {
		_, err := ui.Check([]byte(tc.in))
		var ue *ui.Error
		if assert.True(t, errors.As(err, &ue), "%s: %v", tc.name, err) {
			assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{ue.Line, ue.Column}, tc.name)
			assert.Contains(t, ue.Msg, tc.msg, tc.name)
			assert.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("%d:%d: ", tc.line, tc.col)), err.Error())
		}
	}
	// A problem of no one place has no position.
	_, err := ui.Check([]byte(`{"entries":[{"foo":1}]}`))
	var ue *ui.Error
	require.True(t, errors.As(err, &ue))
	assert.Zero(t, ue.Line)
}

// TestWriteReportFileHuge: a 100,000-entry journal becomes a report in
// bounded time; a failed run leaves no file behind.
func TestWriteReportFileHuge(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"entries":[`)
	for i := 1; i <= 100_000; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"seq":%d,"time":"2026-01-01T00:00:%02d.%03dZ","agent":"a%d","kind":"event","taskId":"t%d","state":"working","request":%d}`,
			i, (i/1000)%60, i%1000, i%3, i/4, i/4)
	}
	b.WriteString(`]}`)
	in := filepath.Join(dir, "j.json")
	require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))
	out := filepath.Join(dir, "r.html")
	start := time.Now()
	require.NoError(t, ui.WriteReportFile(in, out, "", nil, nil))
	t.Logf("100,000 entries (%d bytes): report written in %v", b.Len(), time.Since(start))
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(b.Len()))

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(b.String()[:5000]), 0o644))
	out2 := filepath.Join(dir, "r2.html")
	err = ui.WriteReportFile(bad, out2, "", nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "truncated")
	_, err = os.Stat(out2)
	assert.True(t, os.IsNotExist(err), "no report file after a failure")
	left, _ := filepath.Glob(filepath.Join(dir, ".a2amock-report-*"))
	assert.Empty(t, left, "no temporary file left")
}
