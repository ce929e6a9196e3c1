package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

var listIndex = regexp.MustCompile(`\[\d+\]`)

// AssertNoIgnoredFields asserts that no request carried a member its
// dialect does not define: the agent skips such a member, as servers do,
// so a setting the client believes it sent (v0.3's configuration.blocking
// sent to a v1.0 agent, v1.0's returnImmediately sent to a v0.3 agent, a
// ListTasks page_size where v1.0's JSON reads pageSize) was never read.
// The journal notes them for v1.0 requests over JSON-RPC and HTTP+JSON
// and for v0.2 and v0.3 requests.
func AssertNoIgnoredFields(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var lines []string
	requests, with := 0, 0
	for _, e := range journal {
		if e.Kind != server.EntryRequest {
			continue
		}
		requests++
		if len(e.Ignored) == 0 {
			continue
		}
		with++
		for _, path := range e.Ignored {
			msg := ""
			if e.MessageID != "" {
				msg = fmt.Sprintf(", message %q", e.MessageID)
			}
			line := fmt.Sprintf("\n\t\t%s over %s (entry %d%s): %s", e.Method, e.Binding, e.Seq, msg, path)
			if hint := wire.Describe(e.Dialect).ForeignFields[listIndex.ReplaceAllString(path, "[]")]; hint != "" {
				line += " (" + hint + ")"
			}
			lines = append(lines, line)
		}
	}
	if with == 0 {
		return true
	}
	return assert.Fail(t, failure(fmt.Sprintf("%d of %d request(s) carried fields the agent ignored", with, requests),
		fmt.Sprintf("sent %d request(s)", requests),
		"every field a request carries is one its dialect defines, so the agent reads what the client meant",
		"ignored:"+strings.Join(lines, ""), ""), msgAndArgs...)
}
