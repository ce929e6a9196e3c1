// Package excerpt words the bodies of answers in testkit's error
// messages.
package excerpt

import "strings"

// Of is the start of a body (300 bytes at most, trimmed) for an
// error message about it.
func Of(b []byte) string {
	const n = 300
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
