package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
)

// renamed says, for members a v1.0 agent ignores that an earlier dialect
// defines, what v1.0 calls them: the usual cause of an ignored member is a
// client written against v0.3. Keys are paths with list indexes as [].
var renamed = map[string]string{
	"configuration.blocking":               "v0.3's; v1.0 reads returnImmediately, its inverse: without it a send blocks",
	"configuration.pushNotificationConfig": "v0.3's; v1.0 reads taskPushNotificationConfig, so no push was registered",
	"message.kind":                         "v0.3's discriminator; a v1.0 message has none",
	"message.parts[].kind":                 "v0.3's part discriminator; a v1.0 part is told by its member: text, raw, url or data",
	"message.parts[].file":                 "v0.3's file part; v1.0 reads raw or url, with filename and mediaType",
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

// AssertNoIgnoredFields asserts that no SendMessage or SendStreamingMessage
// request carried a member its dialect does not define: the agent skips
// such a member, as servers do, so a setting the client believes it sent
// (v0.3's configuration.blocking sent to a v1.0 agent) was never read. The
// journal notes them for v1.0 requests over JSON-RPC and HTTP+JSON.
func AssertNoIgnoredFields(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var lines []string
	sends, with := 0, 0
	for _, e := range journal {
		if !isSend(e) {
			continue
		}
		sends++
		if len(e.Ignored) == 0 {
			continue
		}
		with++
		for _, path := range e.Ignored {
			line := fmt.Sprintf("\n\t\t%s over %s (entry %d, message %q): %s", e.Method, e.Binding, e.Seq, e.MessageID, path)
			if hint := renamed[listIndex.ReplaceAllString(path, "[]")]; hint != "" {
				line += " (" + hint + ")"
			}
			lines = append(lines, line)
		}
	}
	if with == 0 {
		return true
	}
	return assert.Fail(t, failure(fmt.Sprintf("%d of %d send(s) carried fields the agent ignored", with, sends),
		fmt.Sprintf("sent %d SendMessage or SendStreamingMessage request(s)", sends),
		"every field a request carries is one its dialect defines, so the agent reads what the client meant",
		"ignored:"+strings.Join(lines, ""), ""), msgAndArgs...)
}
