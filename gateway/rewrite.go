package gateway

// The id and webhook rewriting of bodies and paths, in both directions:
// client-facing aliases in, upstream ids out, and the client's webhook URLs
// swapped for the gateway's own push endpoint.

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

func (g *Gateway) rewritePathIn(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		id, verb, _ := strings.Cut(s, ":")
		if up, ok := g.Upstream(id); ok {
			segs[i] = up
			if verb != "" {
				segs[i] += ":" + verb
			}
		}
	}
	return strings.Join(segs, "/")
}

// rewriteRequestBody maps aliases to upstream ids in a request body (the
// JSON-RPC params, or a REST body) and swaps webhook URLs for the gateway's.
func (g *Gateway) rewriteRequestBody(body []byte, self string, restPushConfig bool) []byte {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	if env, ok := v.(map[string]any); ok {
		if _, isRPC := env["jsonrpc"]; isRPC {
			m, _ := env["method"].(string)
			if p, ok := env["params"]; ok {
				env["params"] = g.walkIn(p, self, strings.Contains(strings.ToLower(m), "pushnotification"))
			}
			b, _ := json.Marshal(env)
			return b
		}
	}
	b, _ := json.Marshal(g.walkIn(v, self, restPushConfig))
	return b
}

var pushConfigKeys = map[string]bool{"pushNotificationConfig": true, "taskPushNotificationConfig": true, "pushNotification": true}

func (g *Gateway) walkIn(v any, self string, isPushConfig bool) any {
	switch x := v.(type) {
	case map[string]any:
		if isPushConfig {
			if u, ok := x["url"].(string); ok {
				x["url"] = g.ownHook(self, u)
			}
		}
		for k, val := range x {
			switch k {
			case "taskId", "id":
				if s, ok := val.(string); ok {
					if up, ok := g.Upstream(s); ok {
						x[k] = up
					}
				}
				continue
			}
			x[k] = g.walkIn(val, self, pushConfigKeys[k])
		}
		return x
	case []any:
		for i := range x {
			if s, ok := x[i].(string); ok {
				if up, ok := g.Upstream(s); ok {
					x[i] = up
				}
				continue
			}
			x[i] = g.walkIn(x[i], self, false)
		}
	}
	return v
}

func (g *Gateway) ownHook(self, clientURL string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.hookOf[clientURL]
	if !ok {
		n = g.nextHook
		g.nextHook++
		g.hooks[n] = clientURL
		g.hookOf[clientURL] = n
		g.hookSeq.push(strconv.Itoa(n))
		for g.hookSeq.len() > g.cfg.MaxTasks {
			old, _ := strconv.Atoi(g.hookSeq.pop())
			delete(g.hookOf, g.hooks[old])
			delete(g.hooks, old)
		}
	}
	return self + pushPrefix + strconv.Itoa(n) + "?key=" + url.QueryEscape(g.cfg.PushKey)
}

// clientHook returns the client's webhook URL behind one of the gateway's
// own webhook URLs (whatever host it was reached by), or false.
func (g *Gateway) clientHook(s string) (string, bool) {
	i := strings.Index(s, pushPrefix)
	if i < 0 || !strings.HasPrefix(s, "http") {
		return "", false
	}
	n, query, _ := strings.Cut(s[i+len(pushPrefix):], "?")
	idx, err := strconv.Atoi(n)
	if err != nil {
		return "", false
	}
	q, err := url.ParseQuery(query)
	if err != nil || q.Get("key") != g.cfg.PushKey {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	dest, ok := g.hooks[idx]
	return dest, ok
}

// rewriteResponseBody maps upstream task ids to the channel's aliases and
// stamps correlation ids; it returns the first correlation id stamped.
func (g *Gateway) rewriteResponseBody(body []byte, channel, self string) ([]byte, string) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return body, ""
	}
	var corr string
	v = g.walkOut(v, channel, self, &corr)
	b, err := json.Marshal(v)
	if err != nil {
		return body, ""
	}
	return b, corr
}

// isTask reports whether m is a task object (by shape, in any dialect).
func isTask(m map[string]any) bool {
	if k, ok := m["kind"].(string); ok {
		return k == "task"
	}
	_, hasStatus := m["status"].(map[string]any)
	_, hasID := m["id"].(string)
	_, hasCtx := m["contextId"].(string)
	_, hasSession := m["sessionId"].(string)
	return hasStatus && hasID && (hasCtx || hasSession)
}

func (g *Gateway) walkOut(v any, channel, self string, corr *string) any {
	switch x := v.(type) {
	case map[string]any:
		var up string
		if isTask(x) {
			up, _ = x["id"].(string)
			x["id"] = g.outID(channel, up)
		}
		if s, ok := x["taskId"].(string); ok && s != "" {
			if up == "" && (x["status"] != nil || x["artifact"] != nil) {
				up = s
			}
			x["taskId"] = g.outID(channel, s)
		}
		if up != "" {
			c := g.CorrelationID(up)
			if *corr == "" {
				*corr = c
			}
			md, _ := x["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
			}
			md[CorrelationMetadataKey] = c
			x["metadata"] = md
		}
		for k, val := range x {
			if k == "metadata" {
				continue
			}
			if k == "referenceTaskIds" {
				if l, ok := val.([]any); ok {
					for i := range l {
						if s, ok := l[i].(string); ok {
							l[i] = g.outID(channel, s)
						}
					}
				}
				continue
			}
			x[k] = g.walkOut(val, channel, self, corr)
		}
		return x
	case []any:
		for i := range x {
			x[i] = g.walkOut(x[i], channel, self, corr)
		}
	case string:
		if orig, ok := g.clientHook(x); ok {
			return orig
		}
		if rest, ok := strings.CutPrefix(x, g.upstream.Scheme+"://"+g.upstream.Host); ok && self != "" {
			return self + rest
		}
	}
	return v
}

// outID is the alias of an upstream id, unless it already is an alias.
func (g *Gateway) outID(channel, up string) string {
	if _, isAlias := g.Upstream(up); isAlias {
		return up
	}
	return g.Alias(channel, up)
}
