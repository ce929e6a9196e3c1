// Package restroute reads the v1.0 HTTP+JSON binding's requests: it maps
// a method and a path below an agent's REST base to an operation, with
// its tenant, task id and push-config id (Parse), and builds the request
// of a bodiless route from its path and query (Query).
//
// It parses; answering (status codes, the error body, the media type) is
// the server's binding.
package restroute

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// LegacySubscribeRoute is the route pattern (after the method) of the
// pre-1.0 SubscribeToTask path, as the journal and Request.Method give it.
const LegacySubscribeRoute = "/tasks/{id}/subscribe"

// Route is a parsed v1.0 HTTP+JSON path.
type Route struct {
	Op       wire.Op
	Tenant   string
	TaskID   string
	ConfigID string
	Method   string // the route pattern, for the journal
	Allow    string // the methods the path allows, when the method was wrong
	maxID    int
}

var restTopLevel = map[string]bool{"message:send": true, "message:stream": true, "tasks": true, "extendedAgentCard": true}

// Parse maps a method and a path below the REST base to an operation;
// ids longer than maxIDBytes are refused. It returns an error (with its
// HTTP status) when nothing matches; IsNoRoute tells a path that names no
// route from a route refusing the request.
func Parse(method, path string, maxIDBytes int) (Route, *wire.Error) {
	rt := Route{maxID: maxIDBytes}
	// Built only when it is the answer: every request to the agent's base
	// URL is tried as a route first.
	notFound := func() *wire.Error {
		return wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s", method, path).WithHTTPStatus(http.StatusNotFound)
	}
	// Parse runs on every request to an agent (twice): the segments of any
	// route, a tenant and one more stay in an array on the stack.
	var buf [6]string
	segs := appendSegments(buf[:0], strings.TrimPrefix(path, "/"))
	if slices.Contains(segs, "") {
		// An empty segment (/tasks/, a doubled slash) names no resource:
		// /tasks/ is not the task list.
		return rt, notFound()
	}
	if len(segs) > 0 && segs[0] != "" && !restTopLevel[segs[0]] {
		rt.Tenant, segs = segs[0], segs[1:]
	}
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return rt, wire.Errorf(wire.CodeInvalidParams, "path segment %q is not valid URL encoding", s).WithHTTPStatus(http.StatusBadRequest)
		}
		segs[i] = u
	}
	wrongMethod := func(allowed string) (Route, *wire.Error) {
		rt.Allow = allowed
		return rt, wire.Errorf(wire.CodeMethodNotFound, "%s is not allowed on %s (allowed: %s)", method, path, allowed).WithHTTPStatus(http.StatusMethodNotAllowed)
	}
	// want matches the route spelt "M /pattern" (a constant, so no
	// string is built per request).
	want := func(m string, op wire.Op, route string) (Route, *wire.Error) {
		if method != m && !(m == http.MethodGet && method == http.MethodHead) {
			return wrongMethod(m)
		}
		rt.Op, rt.Method = op, route
		return rt, nil
	}
	switch {
	case len(segs) == 1 && segs[0] == "message:send":
		return want(http.MethodPost, wire.OpSend, "POST /message:send")
	case len(segs) == 1 && segs[0] == "message:stream":
		return want(http.MethodPost, wire.OpStream, "POST /message:stream")
	case len(segs) == 1 && segs[0] == "extendedAgentCard":
		return want(http.MethodGet, wire.OpExtendedCard, "GET /extendedAgentCard")
	case len(segs) == 1 && segs[0] == "tasks":
		return want(http.MethodGet, wire.OpListTasks, "GET /tasks")
	case len(segs) == 2 && segs[0] == "tasks":
		id, verb := segs[1], ""
		if i := strings.LastIndexByte(id, ':'); i >= 0 {
			id, verb = id[:i], id[i+1:]
		}
		var err *wire.Error
		switch verb {
		case "":
			rt, err = want(http.MethodGet, wire.OpGetTask, "GET /tasks/{id}")
		case "cancel":
			rt, err = want(http.MethodPost, wire.OpCancelTask, "POST /tasks/{id}:cancel")
		case "subscribe":
			// The proto says GET, the spec prose POST: serve both.
			if method != http.MethodGet && method != http.MethodPost {
				return wrongMethod("GET, POST")
			}
			rt.Op, rt.Method = wire.OpSubscribe, method+" /tasks/{id}:subscribe"
		default:
			return rt, notFound()
		}
		if err != nil {
			return rt, err
		}
		return rt.withIDs(id, "")
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "subscribe":
		// The pre-1.0 path. Only a behavior (subscribe-method) serves it;
		// answer.Server.Request answers 404 otherwise.
		if method != http.MethodGet && method != http.MethodPost {
			return wrongMethod("GET, POST")
		}
		rt.Op, rt.Method = wire.OpSubscribe, method+" "+LegacySubscribeRoute
		return rt.withIDs(segs[1], "")
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		switch method {
		case http.MethodPost:
			rt.Op, rt.Method = wire.OpSetPushConfig, "POST /tasks/{id}/pushNotificationConfigs"
		case http.MethodGet:
			rt.Op, rt.Method = wire.OpListPushConfigs, "GET /tasks/{id}/pushNotificationConfigs"
		default:
			return wrongMethod("GET, POST")
		}
		return rt.withIDs(segs[1], "")
	case len(segs) == 4 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		switch method {
		case http.MethodGet:
			rt.Op, rt.Method = wire.OpGetPushConfig, "GET /tasks/{id}/pushNotificationConfigs/{configId}"
		case http.MethodDelete:
			rt.Op, rt.Method = wire.OpDeletePush, "DELETE /tasks/{id}/pushNotificationConfigs/{configId}"
		default:
			return wrongMethod("GET, DELETE")
		}
		return rt.withIDs(segs[1], segs[3])
	}
	return rt, notFound()
}

// withIDs checks the ids of a matched route (a config id only when
// configID is not ""). A bad id is a parameter error: the route's op stays
// set, so a capability the card does not declare is answered first.
func (rt Route) withIDs(taskID, configID string) (Route, *wire.Error) {
	if err := checkID("task id", taskID, rt.maxID); err != nil {
		return rt, err
	}
	rt.TaskID = taskID
	if configID != "" || rt.Op == wire.OpGetPushConfig || rt.Op == wire.OpDeletePush {
		if err := checkID("config id", configID, rt.maxID); err != nil {
			return rt, err
		}
		rt.ConfigID = configID
	}
	return rt, nil
}

// appendSegments appends the "/"-separated segments of p to dst, as
// strings.Split(p, "/") would return them.
func appendSegments(dst []string, p string) []string {
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(dst, p)
		}
		dst, p = append(dst, p[:i]), p[i+1:]
	}
}

// IsNoRoute reports whether Parse's error says that the path names no
// HTTP+JSON route at all (rather than a route with a bad id or method).
func IsNoRoute(e *wire.Error) bool {
	return e != nil && e.Code == wire.CodeMethodNotFound && e.HTTPStatus == http.StatusNotFound
}

func checkID(what, id string, maxID int) *wire.Error {
	if id == "" {
		return wire.ErrInvalidParams(what, "is empty").WithHTTPStatus(http.StatusBadRequest)
	}
	if len(id) > maxID || strings.ContainsAny(id, " \t\r\n\x00") {
		return wire.ErrInvalidParams(what, "is not a valid id").WithHTTPStatus(http.StatusBadRequest)
	}
	return nil
}

// WithTaskID sets taskId from the path in a push-config body.
func WithTaskID(body []byte, taskID string) ([]byte, *wire.Error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, wire.Errorf(wire.CodeParseError, "request body is not a JSON object").WithHTTPStatus(http.StatusBadRequest)
	}
	if raw, ok := m["taskId"]; ok {
		var given string
		if json.Unmarshal(raw, &given) == nil && given != "" && given != taskID {
			return nil, wire.ErrInvalidParams("taskId", "differs from the task id in the path").WithHTTPStatus(http.StatusBadRequest)
		}
	}
	m["taskId"], _ = json.Marshal(taskID)
	b, _ := json.Marshal(m)
	return b, nil
}

// queryKnown lists the query parameters an operation without a body
// reads; the others read none.
var queryKnown = map[wire.Op][]string{
	wire.OpGetTask:         {"historyLength"},
	wire.OpListTasks:       {"contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts"},
	wire.OpListPushConfigs: {"pageSize", "pageToken"},
}

// IgnoredQuery lists, sorted, the query parameters of a request of op
// that the operation does not read (a proto name such as page_size, a
// misspelling), as the journal's ignored fields; A2A-Version, which any
// request may carry there, is not one. At most wire.MaxIgnored.
func IgnoredQuery(op wire.Op, q url.Values) []string {
	var out []string
	for k := range q {
		if k != "A2A-Version" && !slices.Contains(queryKnown[op], k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), wire.MaxIgnored)]
}

// Query builds the request of a bodiless route from path and query.
func Query(rt Route, q url.Values) (*wire.Request, *wire.Error) {
	req := &wire.Request{TaskID: rt.TaskID, PushConfigID: rt.ConfigID, Tenant: rt.Tenant, Ignored: IgnoredQuery(rt.Op, q)}
	intParam := func(name string) (*int, *wire.Error) {
		v := q.Get(name)
		if v == "" {
			return nil, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, wire.ErrInvalidParams(name, "must be a non-negative integer").WithHTTPStatus(http.StatusBadRequest)
		}
		return &n, nil
	}
	var e *wire.Error
	if req.HistoryLength, e = intParam("historyLength"); e != nil {
		return nil, e
	}
	if rt.Op == wire.OpListPushConfigs {
		// The JSON-RPC params' pageSize and pageToken, read as strictly.
		ps, e := intParam("pageSize")
		if e != nil {
			return nil, e
		}
		if ps != nil {
			req.List.PageSize = *ps
		}
		req.List.PageToken = q.Get("pageToken")
		return req, nil
	}
	if rt.Op != wire.OpListTasks {
		return req, nil
	}
	l := &req.List
	l.ContextID, l.PageToken, l.HistoryLength = q.Get("contextId"), q.Get("pageToken"), req.HistoryLength
	if ps, e := intParam("pageSize"); e != nil {
		return nil, e
	} else if ps != nil {
		l.PageSize = *ps
		if *ps == 0 {
			return nil, wire.ErrInvalidParams("pageSize", "must be between 1 and 100").WithHTTPStatus(http.StatusBadRequest)
		}
	}
	if st := q.Get("status"); st != "" {
		state, ok := wire.StateFromV10(st)
		if !ok {
			return nil, wire.ErrInvalidParams("status", "unknown task state "+st).WithHTTPStatus(http.StatusBadRequest)
		}
		l.State = state
	}
	if ts := q.Get("statusTimestampAfter"); ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return nil, wire.ErrInvalidParams("statusTimestampAfter", "must be an RFC 3339 timestamp").WithHTTPStatus(http.StatusBadRequest)
		}
		l.StatusTimestampAfter = t
	}
	switch q.Get("includeArtifacts") {
	case "", "false":
	case "true":
		l.IncludeArtifacts = true
	default:
		return nil, wire.ErrInvalidParams("includeArtifacts", "must be true or false").WithHTTPStatus(http.StatusBadRequest)
	}
	return req, nil
}
