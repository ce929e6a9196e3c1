package server

import (
	"encoding/json"
	"mime"
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

// restRoute is a parsed v1.0 HTTP+JSON path.
type restRoute struct {
	op       wire.Op
	tenant   string
	taskID   string
	configID string
	method   string // the route pattern, for the journal
	allow    string // the methods the path allows, when the method was wrong
}

var restTopLevel = map[string]bool{"message:send": true, "message:stream": true, "tasks": true, "extendedAgentCard": true}

// parseREST maps a method and a path below the REST base to an operation.
// It returns an HTTP status and an error when nothing matches; isNoRoute
// tells a path that names no route from a route refusing the request.
func parseREST(method, path string) (restRoute, *wire.Error) {
	var rt restRoute
	notFound := wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s", method, path).WithHTTPStatus(http.StatusNotFound)
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if slices.Contains(segs, "") {
		// An empty segment (/tasks/, a doubled slash) names no resource:
		// /tasks/ is not the task list.
		return rt, notFound
	}
	if len(segs) > 0 && segs[0] != "" && !restTopLevel[segs[0]] {
		rt.tenant, segs = segs[0], segs[1:]
	}
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return rt, wire.Errorf(wire.CodeInvalidParams, "path segment %q is not valid URL encoding", s).WithHTTPStatus(http.StatusBadRequest)
		}
		segs[i] = u
	}
	wrongMethod := func(allowed string) (restRoute, *wire.Error) {
		rt.allow = allowed
		return rt, wire.Errorf(wire.CodeMethodNotFound, "%s is not allowed on %s (allowed: %s)", method, path, allowed).WithHTTPStatus(http.StatusMethodNotAllowed)
	}
	want := func(m string, op wire.Op, pattern string) (restRoute, *wire.Error) {
		if method != m && !(m == http.MethodGet && method == http.MethodHead) {
			return wrongMethod(m)
		}
		rt.op, rt.method = op, m+" "+pattern
		return rt, nil
	}
	switch {
	case len(segs) == 1 && segs[0] == "message:send":
		return want(http.MethodPost, wire.OpSend, "/message:send")
	case len(segs) == 1 && segs[0] == "message:stream":
		return want(http.MethodPost, wire.OpStream, "/message:stream")
	case len(segs) == 1 && segs[0] == "extendedAgentCard":
		return want(http.MethodGet, wire.OpExtendedCard, "/extendedAgentCard")
	case len(segs) == 1 && segs[0] == "tasks":
		return want(http.MethodGet, wire.OpListTasks, "/tasks")
	case len(segs) == 2 && segs[0] == "tasks":
		id, verb := segs[1], ""
		if i := strings.LastIndexByte(id, ':'); i >= 0 {
			id, verb = id[:i], id[i+1:]
		}
		var err *wire.Error
		switch verb {
		case "":
			rt, err = want(http.MethodGet, wire.OpGetTask, "/tasks/{id}")
		case "cancel":
			rt, err = want(http.MethodPost, wire.OpCancelTask, "/tasks/{id}:cancel")
		case "subscribe":
			// The proto says GET, the spec prose POST: serve both.
			if method != http.MethodGet && method != http.MethodPost {
				return wrongMethod("GET, POST")
			}
			rt.op, rt.method = wire.OpSubscribe, method+" /tasks/{id}:subscribe"
		default:
			return rt, notFound
		}
		if err != nil {
			return rt, err
		}
		return rt.withIDs(id, "")
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "subscribe":
		// The pre-1.0 path. Only a behavior (subscribe-method) serves it;
		// serveRequest answers 404 otherwise.
		if method != http.MethodGet && method != http.MethodPost {
			return wrongMethod("GET, POST")
		}
		rt.op, rt.method = wire.OpSubscribe, method+" "+LegacySubscribeRoute
		return rt.withIDs(segs[1], "")
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		switch method {
		case http.MethodPost:
			rt.op, rt.method = wire.OpSetPushConfig, "POST /tasks/{id}/pushNotificationConfigs"
		case http.MethodGet:
			rt.op, rt.method = wire.OpListPushConfigs, "GET /tasks/{id}/pushNotificationConfigs"
		default:
			return wrongMethod("GET, POST")
		}
		return rt.withIDs(segs[1], "")
	case len(segs) == 4 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		switch method {
		case http.MethodGet:
			rt.op, rt.method = wire.OpGetPushConfig, "GET /tasks/{id}/pushNotificationConfigs/{configId}"
		case http.MethodDelete:
			rt.op, rt.method = wire.OpDeletePush, "DELETE /tasks/{id}/pushNotificationConfigs/{configId}"
		default:
			return wrongMethod("GET, DELETE")
		}
		return rt.withIDs(segs[1], segs[3])
	}
	return rt, notFound
}

// withIDs checks the ids of a matched route (a config id only when
// configID is not ""). A bad id is a parameter error: the route's op stays
// set, so a capability the card does not declare is answered first.
func (rt restRoute) withIDs(taskID, configID string) (restRoute, *wire.Error) {
	if err := checkID("task id", taskID); err != nil {
		return rt, err
	}
	rt.taskID = taskID
	if configID != "" || rt.op == wire.OpGetPushConfig || rt.op == wire.OpDeletePush {
		if err := checkID("config id", configID); err != nil {
			return rt, err
		}
		rt.configID = configID
	}
	return rt, nil
}

// isNoRoute reports whether parseREST's error says that the path names no
// HTTP+JSON route at all (rather than a route with a bad id or method).
func isNoRoute(e *wire.Error) bool {
	return e != nil && e.Code == wire.CodeMethodNotFound && e.HTTPStatus == http.StatusNotFound
}

func checkID(what, id string) *wire.Error {
	if id == "" {
		return wire.ErrInvalidParams(what, "is empty").WithHTTPStatus(http.StatusBadRequest)
	}
	if len(id) > MaxIDBytes || strings.ContainsAny(id, " \t\r\n\x00") {
		return wire.ErrInvalidParams(what, "is not a valid id").WithHTTPStatus(http.StatusBadRequest)
	}
	return nil
}

// restContentType answers in the media type the client used (v1.0.1 says
// application/a2a+json; v1.0.0 clients send application/json).
func restContentType(r *http.Request) string {
	for _, h := range []string{r.Header.Get("Content-Type"), r.Header.Get("Accept")} {
		if mt, _, err := mime.ParseMediaType(h); err == nil && mt == contentTypeA2A {
			return contentTypeA2A
		}
	}
	return contentTypeJSON
}

// restReply answers an HTTP+JSON request in the media type ct.
type restReply struct {
	codec wire.Codec
	ct    string
}

func (rp restReply) fail(w http.ResponseWriter, e *wire.Error) error {
	status, b := wire.EncodeRESTError(e)
	return writeJSON(w, status, rp.ct, b)
}

func (rp restReply) authError(e *wire.Error) *wire.Error { return e }

func (rp restReply) result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	out, err := rp.codec.EncodeResult(op, res)
	if err != nil {
		return rp.fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	if res.Empty {
		out = []byte("{}")
	}
	return writeJSON(w, http.StatusOK, rp.ct, out)
}

func (rp restReply) framer() framer { return restFramer{codec: rp.codec} }

func (rp restReply) transport(s *Server, w http.ResponseWriter, r *http.Request) bindingTransport {
	return newHTTPTransport(s, w, r)
}

// restDialect is the dialect of the HTTP+JSON binding (v1.0).
var restDialect = wire.ForBinding(wire.BindingREST)

// serveREST is the v1.0 HTTP+JSON binding.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request, a *agent, base, path string) error {
	rp := restReply{codec: wire.CodecFor(restDialect), ct: restContentType(r)}
	rt, e := parseREST(r.Method, path)
	if e != nil && rt.op == "" {
		if rt.allow != "" {
			// RFC 9110 §15.5.6: a 405 says which methods the path allows.
			w.Header().Set("Allow", rt.allow)
		}
		return rp.fail(w, e)
	}
	if e := s.checkVersion(r, restDialect); e != nil {
		return rp.fail(w, e)
	}
	req, e := s.restRequest(r, rt, e, rp.codec)
	if e != nil {
		if !paramError(e) || a.gate(rt.op) == nil {
			return rp.fail(w, e)
		}
		// Capability before parameters: an operation the card does not
		// declare is refused as such whatever its parameters.
		req = &wire.Request{}
	}
	req.Op, req.Dialect, req.Binding, req.Method = rt.op, restDialect, wire.BindingREST, rt.method
	if req.Tenant == "" {
		req.Tenant = rt.tenant
	}
	return s.serveRequest(w, r, a, base, req, rp)
}

// restRequest decodes the request of a matched route; routeErr is the
// route's own parameter error (a bad id in the path).
func (s *Server) restRequest(r *http.Request, rt restRoute, routeErr *wire.Error, codec wire.Codec) (*wire.Request, *wire.Error) {
	if routeErr != nil {
		return nil, routeErr
	}
	switch rt.op {
	case wire.OpSend, wire.OpStream, wire.OpSetPushConfig:
		if e := checkContentType(r); e != nil {
			return nil, e
		}
		body, e := readBody(r, s.cfg.MaxBodyBytes)
		if e != nil {
			return nil, e
		}
		if rt.op == wire.OpSetPushConfig {
			if body, e = withTaskID(body, rt.taskID); e != nil {
				return nil, e
			}
		}
		return codec.DecodeParams(rt.op, body)
	}
	return restQuery(rt, r.URL.Query())
}

// withTaskID sets taskId from the path in a push-config body.
func withTaskID(body []byte, taskID string) ([]byte, *wire.Error) {
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

// restQuery builds the request of a bodiless route from path and query.
func restQuery(rt restRoute, q url.Values) (*wire.Request, *wire.Error) {
	req := &wire.Request{TaskID: rt.taskID, PushConfigID: rt.configID, Tenant: rt.tenant}
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
	if rt.op != wire.OpListTasks {
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
