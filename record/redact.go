package record

import (
	"encoding/json"

	"github.com/a2amock/a2amock/internal/redact"
)

// Redacted replaces every credential a recording would otherwise keep.
const Redacted = "REDACTED"

// Redact returns a copy of rec with credentials replaced by Redacted, as
// the mock's journal leaves them out: the values of query parameters in
// request paths (API keys are often passed there), the user information and
// query values of every URL in a body or event (webhook URLs), and the
// values of credential keys (push tokens, authentication credentials). The
// structure stays, so a replay of a redacted recording answers the same.
func Redact(rec *Recording) *Recording {
	out := *rec
	out.Exchanges = make([]Exchange, len(rec.Exchanges))
	for i, x := range rec.Exchanges {
		x.Path = redactPath(x.Path)
		x.Request = redactJSON(x.Request)
		x.Response = redactJSON(x.Response)
		// What is kept as text is mostly JSON cut short (a truncated body,
		// the frame a stream died in) or JSON with a flaw: redact.JSON
		// redacts it up to where it stops being JSON.
		x.Body = redactText(x.Body)
		if x.Tail != "" {
			x.Tail = string(redact.EventStream([]byte(x.Tail), recordingMarks))
		}
		if x.Events != nil {
			evs := make([]Event, len(x.Events))
			for j, ev := range x.Events {
				ev.Data = redactJSON(ev.Data)
				ev.Text = redactText(ev.Text)
				evs[j] = ev
			}
			x.Events = evs
		}
		out.Exchanges[i] = x
	}
	return &out
}

// redactPath keeps a request path and its query keys, not their values.
func redactPath(p string) string { return redact.RequestURI(p, Redacted) }

// redactURL keeps a URL's scheme, host and path; user information and query
// values are replaced. A string that is not an absolute URL is returned as
// it is.
func redactURL(s string) string {
	r, _ := redact.URL(s, Redacted)
	return r
}

// recordingMarks replace credentials with Redacted.
var recordingMarks = redact.Marks{Value: func(int) string { return Redacted }, URL: Redacted}

// redactText redacts a body or event kept as text as redact.JSON does.
func redactText(s string) string {
	if s == "" {
		return s
	}
	return string(redact.JSON([]byte(s), recordingMarks))
}

// redactJSON redacts a body or event as redact.JSON does, with Redacted.
func redactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return redact.JSON(raw, recordingMarks)
}
