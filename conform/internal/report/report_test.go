package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderingsAgree: one failed check shows in the summary, the
// Markdown and the JUnit XML; a failure the baseline lists counts as
// expected.
func TestRenderingsAgree(t *testing.T) {
	t.Parallel()
	rep := &Report{Schema: ReportSchema, Version: ReportVersion, Suite: "default", Client: "client",
		Scenarios: []*ScenarioResult{{ID: "s1", Title: "one", Checks: []*CheckResult{
			{ID: "no-crash", Pass: true, Reason: "ok"},
			{ID: "no-orphans", Reason: "task t1 left working\nsecond line"},
		}}}}
	var sum bytes.Buffer
	WriteSummary(&sum, rep)
	assert.Contains(t, sum.String(), "s1")
	var md, junit bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, rep))
	assert.Contains(t, md.String(), "- **s1** `no-orphans`: task t1 left working<br>second line\n", "a reason's lines kept apart, whole")
	require.NoError(t, WriteJUnit(&junit, rep))
	assert.Contains(t, junit.String(), `<failure`)
	assert.Contains(t, junit.String(), "task t1 left working")

	assert.False(t, rep.Scenarios[0].AllExpected())
	rep.Scenarios[0].Checks[1].Expected = true
	assert.True(t, rep.Scenarios[0].AllExpected())
	assert.Equal(t, "task t1 left working second line", OneLine(rep.Scenarios[0].Checks[1].Reason))
	assert.Len(t, OneLine(strings.Repeat("x", 400)), 300+len("…"))
	cut := OneLine(strings.Repeat("é", 200))
	assert.True(t, utf8.ValidString(cut), "a cut falls between characters: %q", cut[290:])
	assert.Len(t, cut, 300+len("…"))
	assert.Equal(t, "a: b\n    c:  d\n    e", Indented("a: b\nc:  d\ne\n", "    "))
}
