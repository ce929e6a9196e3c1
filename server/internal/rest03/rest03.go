// Package rest03 is the A2A v0.3 HTTP+JSON binding: the proto's /v1/...
// routes (POST /v1/message:send, /v1/message:stream, GET /v1/tasks/{id},
// POST /v1/tasks/{id}:cancel, GET or POST /v1/tasks/{id}:subscribe, the
// push-config routes, GET /v1/card) below the interface URL a v0.3 card
// declares as HTTP+JSON, {agent}{RESTPath} (wire.Descriptor.RESTPath).
// Bodies are the v0.3 proto's JSON (codecs.ForREST); the engine, the
// journal and the behaviors see the requests as any other, of binding
// HTTP+JSON and the card's dialect.
//
// It decodes and answers; routing to agents, the journal, the behaviors
// and the timeline are the core's (binding.Host).
package rest03

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/restroute"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// Claims reports whether path, below an agent's base, is one of this
// binding's: {RESTPath}/v1/... of a dialect that has a RESTPath. No such
// path is a route of the v1.0 binding, whose tenant forms never put v1
// after the tenant.
func Claims(path string) bool {
	_, at := wire.RESTRoutesAt(path)
	return at == 0
}

// Serve serves path, below agent a's base, which Claims. declared says
// whether the agent's configuration declares HTTP+JSON; the agent's card
// dialect must be the one whose RESTPath path is under.
func Serve(h binding.Host, w http.ResponseWriter, r *http.Request, a httpbind.Agent, base, path string, declared bool) error {
	d := a.CardDialect()
	desc := wire.Describe(d)
	codec, encodeError := codecs.ForREST(d)
	sub, under := strings.CutPrefix(path, desc.RESTPath+"/v1")
	if desc.RESTPath == "" || !under || codec == nil || !declared || !slices.Contains(desc.Bindings, wire.BindingREST) {
		// The agent serves no v0.3 HTTP+JSON: answered as any unrouted path.
		_, enc := codecs.ForREST(wire.ForBinding(wire.BindingREST))
		e := wire.Errorf(wire.CodeMethodNotFound, "no route %s %s: this agent's card (A2A v%s) declares no HTTP+JSON interface there",
			r.Method, r.URL.Path, d).WithHTTPStatus(http.StatusNotFound)
		rp := reply{encodeError: enc}
		if !httpbind.JournalsUnrouted(r) {
			return rp.Fail(w, e)
		}
		return refuse(h, w, r, a, rp, "", "", "", e)
	}
	rp := reply{codec: codec, encodeError: encodeError}
	rt, e := route(r.Method, sub, desc)
	if e != nil && rt.Op == "" {
		if rt.Allow != "" {
			w.Header().Set("Allow", rt.Allow)
		}
		if !httpbind.JournalsUnrouted(r) {
			return rp.Fail(w, e)
		}
		return refuse(h, w, r, a, rp, "", "", "", e)
	}
	if e == nil {
		e = h.CheckVersion(r, d)
	}
	var req *wire.Request
	if e == nil {
		req, e = decode(h, r, rt, codec)
	}
	if e != nil {
		if !binding.ParamError(e) || a.Gate(rt.Op) == nil {
			return refuse(h, w, r, a, rp, d, rt.Op, rt.Method, e)
		}
		// Capability before parameters, as on the other bindings.
		req = &wire.Request{}
	}
	req.Op, req.Dialect, req.Binding, req.Method = rt.Op, d, wire.BindingREST, rt.Method
	return h.Serve(w, r, a, base, req, rp)
}

// route maps a path below {RESTPath}/v1 to an operation of dialect desc,
// reading it as restroute reads v1.0's (same verbs, same id rules) but for
// the card route and without tenants; the journal's route pattern carries
// the /v1 prefix.
func route(method, sub string, desc wire.Descriptor) (restroute.Route, *wire.Error) {
	noRoute := func() (restroute.Route, *wire.Error) {
		return restroute.Route{}, wire.Errorf(wire.CodeMethodNotFound, "no A2A v%s HTTP+JSON route %s /v1%s", desc.Dialect, method, sub).WithHTTPStatus(http.StatusNotFound)
	}
	if sub == "/card" {
		if method != http.MethodGet && method != http.MethodHead {
			return restroute.Route{Allow: http.MethodGet}, wire.Errorf(wire.CodeMethodNotFound, "%s is not allowed on /v1/card (allowed: GET)", method).WithHTTPStatus(http.StatusMethodNotAllowed)
		}
		return restroute.Route{Op: wire.OpExtendedCard, Method: "GET /v1/card"}, nil
	}
	rt, e := restroute.Parse(method, sub, binding.MaxIDBytes)
	if rt.Tenant != "" || rt.Op == wire.OpExtendedCard || (rt.Op != "" && !desc.Supports(rt.Op)) || restroute.IsNoRoute(e) {
		return noRoute()
	}
	if m, pattern, ok := strings.Cut(rt.Method, " "); ok {
		rt.Method = m + " /v1" + pattern
	}
	return rt, e
}

// decode builds the proto request message of the route (the body, or
// what the path and query stand for) and decodes it.
func decode(h binding.Host, r *http.Request, rt restroute.Route, codec wire.Codec) (*wire.Request, *wire.Error) {
	var msg []byte
	// ignored is what a bodiless route's query holds that the operation
	// does not read: the body of its proto message, built here, has
	// nothing the codec could find ignored.
	var ignored []string
	switch rt.Op {
	case wire.OpSend, wire.OpStream, wire.OpSetPushConfig:
		if e := httpbind.CheckContentType(r); e != nil {
			return nil, e
		}
		body, e := binding.ReadBody(r, h.MaxBodyBytes())
		if e != nil {
			return nil, e
		}
		msg = body
		if rt.Op == wire.OpSetPushConfig {
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) != nil || m == nil {
				return nil, wire.Errorf(wire.CodeParseError, "request body is not a JSON object").WithHTTPStatus(http.StatusBadRequest)
			}
			m["parent"], _ = json.Marshal("tasks/" + rt.TaskID)
			msg, _ = json.Marshal(m)
		}
	case wire.OpGetTask:
		q, e := restroute.Query(rt, r.URL.Query())
		if e != nil {
			return nil, e
		}
		ignored = q.Ignored
		m := map[string]any{"name": "tasks/" + rt.TaskID}
		if q.HistoryLength != nil {
			m["historyLength"] = *q.HistoryLength
		}
		msg, _ = json.Marshal(m)
	case wire.OpCancelTask, wire.OpSubscribe:
		ignored = restroute.IgnoredQuery(rt.Op, r.URL.Query())
		msg, _ = json.Marshal(map[string]string{"name": "tasks/" + rt.TaskID})
	case wire.OpListPushConfigs:
		ignored = restroute.IgnoredQuery(rt.Op, r.URL.Query())
		msg, _ = json.Marshal(map[string]string{"parent": "tasks/" + rt.TaskID})
	case wire.OpGetPushConfig, wire.OpDeletePush:
		ignored = restroute.IgnoredQuery(rt.Op, r.URL.Query())
		msg, _ = json.Marshal(map[string]string{"name": "tasks/" + rt.TaskID + "/pushNotificationConfigs/" + rt.ConfigID})
	}
	req, e := codec.DecodeParams(rt.Op, msg)
	if req != nil && len(ignored) > 0 {
		req.Ignored = append(ignored, req.Ignored...)
	}
	return req, e
}

// refuse journals a request refused before it was served and answers e.
func refuse(h binding.Host, w http.ResponseWriter, r *http.Request, a httpbind.Agent, rp reply, d wire.Dialect, op wire.Op, method string, e *wire.Error) error {
	h.Refused(w, r, a, &wire.Request{Op: op, Method: method, Binding: wire.BindingREST, Dialect: d}, e)
	return rp.Fail(w, e)
}

// reply answers in the binding's terms: application/json bodies, the
// dialect's error body, SSE streams whose data are StreamResponses.
type reply struct {
	codec       wire.Codec
	encodeError func(*wire.Error) (int, []byte)
}

func (rp reply) Fail(w http.ResponseWriter, e *wire.Error) error {
	status, b := rp.encodeError(e)
	return httpbind.WriteJSON(w, status, httpbind.ContentTypeJSON, b)
}

func (rp reply) AuthError(e *wire.Error) *wire.Error { return e }

func (rp reply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	out, err := rp.codec.EncodeResult(op, res)
	if err != nil {
		return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	return httpbind.WriteJSON(w, http.StatusOK, httpbind.ContentTypeJSON, out)
}

func (rp reply) Framer() binding.Framer { return framer(rp) }

func (rp reply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return httpbind.NewTransport(h, w, r)
}

type framer reply

func (f framer) Event(ev wire.Event) ([]byte, error) { return f.codec.EncodeEvent(ev) }

func (f framer) ErrorFrame(e *wire.Error) []byte {
	_, b := f.encodeError(e)
	return b
}

func (f framer) Refuse(w http.ResponseWriter, e *wire.Error) error { return reply(f).Fail(w, e) }

func (f framer) RPCID() json.RawMessage { return nil }

func (f framer) Open(w http.ResponseWriter) binding.StreamWriter { return sse.NewWriter(w) }
