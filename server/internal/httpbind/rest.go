package httpbind

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/restroute"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// restContentType answers in the media type the client used (v1.0.1 says
// application/a2a+json; v1.0.0 clients send application/json).
func restContentType(r *http.Request) string {
	for _, h := range []string{r.Header.Get("Content-Type"), r.Header.Get("Accept")} {
		switch h {
		case "", ContentTypeJSON:
			continue // what clients send, known without parsing not to be it
		case ContentTypeA2A:
			return ContentTypeA2A
		}
		if mt, _, err := mime.ParseMediaType(h); err == nil && mt == ContentTypeA2A {
			return ContentTypeA2A
		}
	}
	return ContentTypeJSON
}

// restReply answers an HTTP+JSON request in the media type ct.
type restReply struct {
	codec wire.Codec
	ct    string
}

func (rp restReply) Fail(w http.ResponseWriter, e *wire.Error) error {
	status, b := codecs.EncodeRESTError(e)
	return WriteJSON(w, status, rp.ct, b)
}

func (rp restReply) AuthError(e *wire.Error) *wire.Error { return e }

func (rp restReply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	buf := resultBuffer()
	out, err := wire.AppendResult(rp.codec, buf.b, op, res)
	if err != nil {
		buf.release(nil)
		return rp.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	body := out
	if res.Empty {
		body = []byte("{}")
	}
	err = WriteJSON(w, http.StatusOK, rp.ct, body)
	buf.release(out)
	return err
}

func (rp restReply) Framer() binding.Framer { return restFramer{codec: rp.codec} }

func (rp restReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return NewTransport(h, w, r)
}

// restDialect is the dialect of the HTTP+JSON binding (v1.0).
var restDialect = wire.ForBinding(wire.BindingREST)

// ServeREST is the v1.0 HTTP+JSON binding: path is below the agent's REST
// base.
func ServeREST(h binding.Host, w http.ResponseWriter, r *http.Request, a Agent, base, path string) error {
	rp := restReply{codec: codecs.For(restDialect), ct: restContentType(r)}
	rt, e := restroute.Parse(r.Method, path, binding.MaxIDBytes)
	if e != nil && rt.Op == "" {
		if rt.Allow != "" {
			// RFC 9110 §15.5.6: a 405 says which methods the path allows.
			w.Header().Set("Allow", rt.Allow)
		}
		if !JournalsUnrouted(r) {
			return rp.Fail(w, e)
		}
		return refuseREST(h, w, r, a, rp, "", "", e)
	}
	if e := h.CheckVersion(r, restDialect); e != nil {
		return refuseREST(h, w, r, a, rp, rt.Op, rt.Method, e)
	}
	req, e := restRequest(h, r, rt, e, rp.codec)
	if e != nil {
		if !binding.ParamError(e) || a.Gate(rt.Op) == nil {
			return refuseREST(h, w, r, a, rp, rt.Op, rt.Method, e)
		}
		// Capability before parameters: an operation the card does not
		// declare is refused as such whatever its parameters.
		req = &wire.Request{}
	}
	req.Op, req.Dialect, req.Binding, req.Method = rt.Op, restDialect, wire.BindingREST, rt.Method
	if req.Tenant == "" {
		req.Tenant = rt.Tenant
	}
	return h.Serve(w, r, a, base, req, rp)
}

// refuseREST journals an HTTP+JSON request refused before it was served,
// with what is known of it (the operation and route its path names, none
// when it names no route), and answers e.
func refuseREST(h binding.Host, w http.ResponseWriter, r *http.Request, a Agent, rp restReply, op wire.Op, method string, e *wire.Error) error {
	req := &wire.Request{Op: op, Method: method, Binding: wire.BindingREST}
	if op != "" {
		req.Dialect = restDialect
	}
	h.Refused(w, r, a, req, e)
	return rp.Fail(w, e)
}

// JournalsUnrouted says whether a request no route of the agent serves is
// journaled: every one that could be an A2A client's (anything but a GET
// or HEAD, or one naming an A2A-Version), not the GETs a browser or a
// probe sends on its own (a favicon beside the timeline page, the agent's
// base URL opened in a tab).
func JournalsUnrouted(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true
	}
	return RequestedVersion(r) != ""
}

// restRequest decodes the request of a matched route; routeErr is the
// route's own parameter error (a bad id in the path).
func restRequest(h binding.Host, r *http.Request, rt restroute.Route, routeErr *wire.Error, codec wire.Codec) (*wire.Request, *wire.Error) {
	if routeErr != nil {
		return nil, routeErr
	}
	switch rt.Op {
	case wire.OpSend, wire.OpStream, wire.OpSetPushConfig:
		if e := CheckContentType(r); e != nil {
			return nil, e
		}
		body, e := binding.ReadBody(r, h.MaxBodyBytes())
		if e != nil {
			return nil, e
		}
		if rt.Op == wire.OpSetPushConfig {
			if body, e = restroute.WithTaskID(body, rt.TaskID); e != nil {
				return nil, e
			}
		}
		return codec.DecodeParams(rt.Op, body)
	}
	return restroute.Query(rt, r.URL.Query())
}

type restFramer struct{ codec wire.Codec }

func (f restFramer) Event(ev wire.Event) ([]byte, error) { return f.codec.EncodeEvent(ev) }

func (f restFramer) ErrorFrame(e *wire.Error) []byte {
	_, b := codecs.EncodeRESTError(e)
	return b
}

func (f restFramer) Refuse(w http.ResponseWriter, e *wire.Error) error {
	status, b := codecs.EncodeRESTError(e)
	return WriteJSON(w, status, ContentTypeJSON, b)
}

func (f restFramer) RPCID() json.RawMessage { return nil }

func (f restFramer) Open(w http.ResponseWriter) binding.StreamWriter { return sse.NewWriter(w) }
