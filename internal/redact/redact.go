// Package redact finds the credentials an A2A exchange can carry outside
// its headers and replaces them: the values of credential keys in a body
// (push-notification tokens, authentication credentials, API keys), and
// the user information and query values of URLs (API keys in a request's
// query, signed webhook URLs). The journal never keeps them; the places
// that show whole exchanges use this to leave them out as well: recordings
// (record) and the raw wire view (GET /_a2amock/journal/wire).
package redact

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// credentialKeys are the JSON keys whose string values are credentials in
// some dialect: push-notification tokens and authentication credentials,
// and the API keys and secrets an agent or a client might put in a body.
var credentialKeys = map[string]bool{
	"token": true, "credentials": true, "authCredentials": true, "auth_credentials": true,
	"apiKey": true, "api_key": true, "password": true, "secret": true, "clientSecret": true,
	"client_secret": true, "accessToken": true, "access_token": true, "refreshToken": true, "refresh_token": true,
}

// IsCredentialKey reports whether a body's value under key k is a
// credential.
func IsCredentialKey(k string) bool { return credentialKeys[k] }

// Mark is what a redacted value of n bytes is shown as where the shape of
// the exchange matters more than replaying it (the raw wire view), as its
// headers are.
func Mark(n int) string { return "[redacted: " + strconv.Itoa(n) + " bytes]" }

// URLMark replaces the user information and query values of a URL in a
// body: plain letters, so that the URL reads as one.
const URLMark = "redacted"

// appendJSONString appends s to b as a JSON string (what strconv's Go
// quoting is not, for control and non-ASCII characters).
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// Query returns the query string q with every value replaced by mark,
// keys kept; one that does not parse is replaced whole.
func Query(q, mark string) string {
	vals, err := url.ParseQuery(q)
	if err != nil {
		return mark
	}
	for k := range vals {
		for i := range vals[k] {
			vals[k][i] = mark
		}
	}
	return vals.Encode()
}

// RequestURI returns a request's path and query with the query's values
// replaced by mark.
func RequestURI(uri, mark string) string {
	path, query, ok := strings.Cut(uri, "?")
	if !ok {
		return uri
	}
	return path + "?" + Query(query, mark)
}

// URL returns s with the user information and query values of an absolute
// URL replaced by mark (scheme, host and path kept), and whether it
// changed; a string that is not an absolute URL, or has neither, is
// returned as it is.
func URL(s, mark string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.User == nil && u.RawQuery == "") {
		return s, false
	}
	if u.User != nil {
		u.User = url.User(mark)
	}
	if u.RawQuery != "" {
		u.RawQuery = Query(u.RawQuery, mark)
	}
	return u.String(), true
}

// Marks say what redacted parts are replaced with: Value(n) a credential
// of n bytes, URL the user information and query values of a URL.
type Marks struct {
	Value func(n int) string
	URL   string
}

// RawView are the marks of the raw wire view: a credential's length, as
// its headers show it, and URLMark.
var RawView = Marks{Value: Mark, URL: URLMark}

// JSON returns the JSON text b with the string values of credential keys
// replaced by marks.Value of their length and the URLs among its strings
// redacted, every other byte as it was (spacing and key order included).
// A document cut short is redacted up to the cut; what is not JSON is
// returned as it is.
func JSON(b []byte, marks Marks) []byte {
	// A container's key is the key it is the value of (for an array in an
	// array, the outer one's): an array under a credential key holds
	// credentials.
	type container struct {
		object, wantKey bool
		key             string
	}
	var (
		stack []container
		key   string
		out   []byte
		done  int // b[:done] is in out already
	)
	replace := func(start, end int, v string) {
		out = append(out, b[done:start]...)
		out = appendJSONString(out, v)
		done = end
	}
	// replaceCut replaces a string cut short, from its opening quote to
	// the end of b, with v left as open as the string was: a closing quote
	// would show a whole string where the body was cut.
	replaceCut := func(start int, v string) {
		replace(start, len(b), v)
		out = out[:len(out)-1]
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			// A document cut inside a credential leaves the start of it:
			// the rest of the bytes go.
			top := len(stack) - 1
			q := bytes.IndexByte(b[before:], '"')
			if top >= 0 && (!stack[top].object && credentialKeys[stack[top].key] || stack[top].object && !stack[top].wantKey && credentialKeys[key]) {
				if q >= 0 {
					replaceCut(before+q, marks.Value(len(b)-before-q))
				}
			} else if q >= 0 && top >= 0 && !(stack[top].object && stack[top].wantKey) {
				// A value cut inside its string: a webhook URL's query
				// is as secret in the first 16 KiB of a body, or in the
				// frame a stream died in, as in a whole one.
				if r, ok := cutURL(b[before+q+1:], marks.URL); ok {
					replaceCut(before+q, r)
				}
			}
			break
		}
		end := int(dec.InputOffset())
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				under := key
				if top >= 0 && !stack[top].object {
					under = stack[top].key
				}
				stack = append(stack, container{object: d == '{', wantKey: d == '{', key: under})
				continue
			default:
				stack = stack[:top]
				top--
			}
		} else if s, ok := tok.(string); ok {
			if top >= 0 && stack[top].object && stack[top].wantKey {
				key, stack[top].wantKey = s, false
				continue
			}
			// The value's quote is the first one after the separators
			// Token skipped.
			start := before + bytes.IndexByte(b[before:end], '"')
			under := key
			if top >= 0 && !stack[top].object {
				under = stack[top].key
			}
			if start >= before && s != "" && top >= 0 && credentialKeys[under] {
				replace(start, end, marks.Value(len(s)))
			} else if r, changed := URL(s, marks.URL); changed && start >= before {
				replace(start, end, r)
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// cutURL is the text of a JSON string cut short (after its opening quote,
// with no closing one) redacted as URL redacts it, when it is a URL with
// user information or a query. An escape cut in the middle is dropped.
func cutURL(rest []byte, mark string) (string, bool) {
	if bytes.IndexByte(rest, '"') >= 0 {
		return "", false // not a string running to the cut
	}
	for trim := 0; trim <= 5 && trim <= len(rest); trim++ {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, rest[:len(rest)-trim]...), '"'), &s) == nil {
			return URL(s, mark)
		}
	}
	return "", false
}

// EventStream redacts the JSON of every data line of a text/event-stream
// body, as JSON does.
func EventStream(b []byte, marks Marks) []byte {
	var out []byte
	rest := b
	for len(rest) > 0 {
		line, next, found := bytes.Cut(rest, []byte("\n"))
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			out = append(out, "data:"...)
			out = append(out, JSON(data, marks)...)
		} else {
			out = append(out, line...)
		}
		if found {
			out = append(out, '\n')
		}
		rest = next
	}
	return out
}
