package record

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// ControlPrefix is where a2amock's control API lives: the proxy does not
// record calls under it, and a replay serves its own there.
const ControlPrefix = "/_a2amock/"

// isCardPath reports whether path is a well-known card location.
func isCardPath(path string) bool {
	return strings.HasSuffix(path, "/.well-known/agent-card.json") || strings.HasSuffix(path, "/.well-known/agent.json")
}

// Classify names a request for matching: its kind and method. body is the
// request body; the JSON-RPC id is returned for JSON-RPC calls.
func Classify(method, path string, body []byte) (Kind, string, json.RawMessage) {
	if method == http.MethodGet || method == http.MethodHead {
		if isCardPath(path) {
			return KindCard, "GET " + path, nil
		}
	}
	if method == http.MethodPost {
		var env struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &env) == nil && env.Method != "" && !strings.Contains(path, ":") {
			return KindJSONRPC, env.Method, env.ID
		}
	}
	return KindREST, method + " " + restRoute(path), nil
}

// restRoute replaces the ids in an HTTP+JSON path by {id}, so that
// GET /tasks/abc and GET /tasks/def are the same kind of request.
func restRoute(path string) string {
	segs := strings.Split(path, "/")
	for i := 1; i < len(segs); i++ {
		switch segs[i-1] {
		case "tasks", "pushNotificationConfigs":
			s := segs[i]
			verb := ""
			if j := strings.LastIndexByte(s, ':'); j >= 0 {
				verb = s[j:]
			}
			if s != "" {
				segs[i] = "{id}" + verb
			}
		}
	}
	return strings.Join(segs, "/")
}

// IsCardAnswer reports whether the answer to this request carries a card
// whose interface URLs must be rewritten, and for JSON-RPC whether the card
// is the envelope's result.
func IsCardAnswer(kind Kind, method, path string) (card, inResult bool) {
	switch {
	case kind == KindCard:
		return true, false
	case kind == KindJSONRPC && (method == "GetExtendedAgentCard" || method == "agent/getAuthenticatedExtendedCard"):
		return true, true
	case kind == KindREST && strings.HasSuffix(strings.TrimRight(path, "/"), "/extendedAgentCard"):
		return true, false
	}
	return false, false
}

// RewriteCard points the interface URLs of a card (v1.0
// supportedInterfaces[].url, v0.3 url and additionalInterfaces[].url,
// v0.1/v0.2 url) at toBase. A URL is rewritten when its path lies under
// fromPath, the path of the recorded agent's base URL; its host is not
// compared, because agents often advertise a public name or "localhost"
// for the address they were reached by. A GRPC interface (v1.0's
// protocolBinding, v0.3's transport or preferredTransport) is pointed at
// toBase's host:port, where the proxy (and a replay) serve gRPC too.
// Other URLs and bodies that are not JSON objects are left as they are.
func RewriteCard(body []byte, inResult bool, fromPath, toBase string) []byte {
	if inResult {
		var env map[string]json.RawMessage
		if json.Unmarshal(body, &env) != nil || env["result"] == nil {
			return body
		}
		env["result"] = RewriteCard(env["result"], false, fromPath, toBase)
		out, err := json.Marshal(env)
		if err != nil {
			return body
		}
		return out
	}
	var card map[string]json.RawMessage
	if json.Unmarshal(body, &card) != nil {
		return body
	}
	changed := false
	fix := func(raw json.RawMessage) (json.RawMessage, bool) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return raw, false
		}
		ns, ok := rewriteURL(s, fromPath, toBase)
		if !ok {
			return raw, false
		}
		b, _ := json.Marshal(ns)
		return b, true
	}
	if raw, ok := card["url"]; ok {
		fixURL := fix
		if string(card["preferredTransport"]) == `"GRPC"` {
			// v0.3: the main interface is gRPC's, at host:port.
			fixURL = func(raw json.RawMessage) (json.RawMessage, bool) { return fixGRPC(raw, toBase) }
		}
		if nr, ok := fixURL(raw); ok {
			card["url"], changed = nr, true
		}
	}
	for _, key := range []string{"supportedInterfaces", "additionalInterfaces"} {
		raw, ok := card[key]
		if !ok {
			continue
		}
		var ifaces []map[string]json.RawMessage
		if json.Unmarshal(raw, &ifaces) != nil {
			continue
		}
		hit := false
		for _, ifc := range ifaces {
			u, ok := ifc["url"]
			if !ok {
				continue
			}
			if string(ifc["protocolBinding"]) == `"GRPC"` || string(ifc["transport"]) == `"GRPC"` {
				if nu, ok := fixGRPC(u, toBase); ok {
					ifc["url"], hit = nu, true
				}
				continue
			}
			if nu, ok := fix(u); ok {
				ifc["url"], hit = nu, true
			}
		}
		if hit {
			b, err := json.Marshal(ifaces)
			if err == nil {
				card[key], changed = b, true
			}
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(card)
	if err != nil {
		return body
	}
	return out
}

// fixGRPC points a GRPC interface's url (host:port, or a URL) at the host
// of toBase, keeping its form; a GRPC interface has no base path, so its
// host is not compared.
func fixGRPC(raw json.RawMessage, toBase string) (json.RawMessage, bool) {
	var s string
	base, err := url.Parse(toBase)
	if json.Unmarshal(raw, &s) != nil || err != nil || base.Host == "" || grpcHost(s) == "" {
		return raw, false
	}
	out := base.Host
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		u.Host = base.Host
		if u.Scheme == "http" || u.Scheme == "https" {
			u.Scheme = base.Scheme // TLS or not is the proxy's to say
		}
		out = u.String()
	}
	b, _ := json.Marshal(out)
	return b, true
}

func rewriteURL(s, fromPath, toBase string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, false
	}
	base := strings.TrimRight(fromPath, "/")
	if base != "" && u.Path != base && !strings.HasPrefix(u.Path, base+"/") {
		return s, false
	}
	out := strings.TrimRight(toBase, "/") + strings.TrimPrefix(u.Path, base)
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, true
}

// Origin is the base URL a client reached this handler by.
func Origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// WithID replaces the "id" member of a JSON-RPC envelope; anything else is
// returned unchanged.
func WithID(b []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return b
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(b, &env) != nil {
		return b
	}
	if _, ok := env["id"]; !ok {
		return b
	}
	env["id"] = id
	out, err := json.Marshal(env)
	if err != nil {
		return b
	}
	return out
}
