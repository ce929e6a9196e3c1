package record

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
)

// Redacted replaces every credential a recording would otherwise keep.
const Redacted = "REDACTED"

// credentialKeys are the JSON keys whose string values are credentials in
// some dialect: push-notification tokens and authentication credentials,
// and the API keys and secrets an agent or a client might put in a body.
var credentialKeys = map[string]bool{
	"token": true, "credentials": true, "authCredentials": true, "auth_credentials": true,
	"apiKey": true, "api_key": true, "password": true, "secret": true, "clientSecret": true,
	"client_secret": true, "accessToken": true, "access_token": true, "refreshToken": true, "refresh_token": true,
}

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
		if x.Events != nil {
			evs := make([]Event, len(x.Events))
			for j, ev := range x.Events {
				ev.Data = redactJSON(ev.Data)
				evs[j] = ev
			}
			x.Events = evs
		}
		out.Exchanges[i] = x
	}
	return &out
}

// redactPath keeps a request path and its query keys, not their values.
func redactPath(p string) string {
	path, query, ok := strings.Cut(p, "?")
	if !ok {
		return p
	}
	return path + "?" + redactQuery(query)
}

func redactQuery(q string) string {
	vals, err := url.ParseQuery(q)
	if err != nil {
		return Redacted
	}
	for k := range vals {
		for i := range vals[k] {
			vals[k][i] = Redacted
		}
	}
	return vals.Encode()
}

// redactURL keeps a URL's scheme, host and path; user information and query
// values are replaced. A string that is not an absolute URL is returned as
// it is.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.User == nil && u.RawQuery == "") {
		return s
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" {
		u.RawQuery = redactQuery(u.RawQuery)
	}
	return u.String()
}

func redactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	changed := false
	v = redactValue(v, "", &changed)
	if !changed {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func redactValue(v any, key string, changed *bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(e, k, changed)
		}
	case []any:
		for i, e := range x {
			x[i] = redactValue(e, key, changed)
		}
	case string:
		if credentialKeys[key] && x != "" && x != Redacted {
			*changed = true
			return Redacted
		}
		if r := redactURL(x); r != x {
			*changed = true
			return r
		}
	}
	return v
}
