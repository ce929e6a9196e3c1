package record

import (
	"encoding/json"
	"net/http"
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
