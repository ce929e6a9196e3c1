package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/grpcbind"
	"github.com/a2amock/a2amock/server/internal/restroute"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/wire"
)

const (
	restPrefix      = "/rest"
	cardPath        = "/.well-known/agent-card.json"
	legacyCardPath  = "/.well-known/agent.json"
	controlPrefix   = "/_a2amock"
	versionHeader   = "A2A-Version"
	contentTypeJSON = "application/json"
	contentTypeA2A  = "application/a2a+json"
)

// exchangeHTTP is what the server tells the behaviors of a request's
// transport (behaviors.Exchange.HTTP).
type exchangeHTTP struct{ r behaviors.Incoming }

// incomingHTTP is an HTTP request as behaviors.Incoming.
type incomingHTTP struct{ r *http.Request }

func (i incomingHTTP) Context() context.Context  { return i.r.Context() }
func (i incomingHTTP) Method() string            { return i.r.Method }
func (i incomingHTTP) Path() string              { return i.r.URL.Path }
func (i incomingHTTP) Header(name string) string { return i.r.Header.Get(name) }
func (i incomingHTTP) Query(name string) string  { return i.r.URL.Query().Get(name) }
func (i incomingHTTP) Cookie(name string) string {
	if c, err := i.r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: true}))
	e.Use(s.logRequests)
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		// A transport fault (behaviors.Transport) may have taken the
		// connection over: nothing can be written to it any more.
		if c.Response().Committed || errors.Is(err, http.ErrHijacked) {
			return
		}
		status := http.StatusInternalServerError
		var he *echo.HTTPError
		if errors.As(err, &he) {
			status = he.Code
		}
		msg := http.StatusText(status)
		if status == http.StatusNotFound && strings.HasPrefix(c.Request().URL.Path, controlPrefix) {
			msg = "the control API has no route " + c.Request().Method + " " + c.Request().URL.Path + "; its routes are described at " + controlPrefix + "/openapi.json"
		}
		// The shape of every other control-API and HTTP+JSON error:
		// {"error":{"code","status","message"}}.
		_ = c.JSON(status, map[string]any{"error": map[string]any{"code": status, "status": wire.GRPCStatusName(status), "message": msg}})
	}
	s.controlRoutes(e.Group(controlPrefix, s.guardControl))
	e.GET(controlPrefix+"/ui", s.serveUI, s.guardUIPage)
	// One catch-all route: agents are routed here rather than by echo, which
	// keeps Start cheap (each echo route costs a tree insertion per method).
	e.Any("/*", s.dispatch)
	return e
}

func (s *Server) dispatch(c echo.Context) error {
	// Route on the escaped path: restroute.Parse unescapes each segment once, so
	// a task id holding "/" or "%" (v0.1 clients choose their ids) stays
	// one segment and is not decoded twice.
	p := c.Request().URL.EscapedPath()
	if rest, ok := strings.CutPrefix(p, "/agents/"); ok {
		name, sub, _ := strings.Cut(rest, "/")
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
		a, found := s.lookupAgent(name)
		if !found {
			return writeStatusError(c.Response(), wire.Errorf(wire.CodeMethodNotFound, "no agent named %q (agents: %s)", name, strings.Join(s.AgentNames(), ", ")).WithHTTPStatus(http.StatusNotFound))
		}
		return s.serveAgentPath(c, a, "/agents/"+a.name, "/"+sub)
	}
	if p == "" {
		p = "/"
	}
	return s.serveAgentPath(c, s.agents[0], "", p)
}

func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if s.log.Enabled(c.Request().Context(), -4) {
			s.log.Debug("request", "method", c.Request().Method, "path", c.Request().URL.Path,
				"status", c.Response().Status, "bytes", c.Response().Size, "duration", time.Since(start))
		}
		return err
	}
}

// serveAgentPath routes a request under an agent's base path.
func (s *Server) serveAgentPath(c echo.Context, a *agent, base, rest string) error {
	if s.cfg.GRPC && grpcbind.IsCall(c.Request()) {
		return s.grpc.Serve(c.Response(), c.Request(), a, base, rest)
	}
	cw, cr, rec := s.wire.Wrap(c.Response().Writer, c.Request(), s.clock.Now())
	c.Response().Writer = cw
	c.SetRequest(cr)
	defer rec.Finish()
	r, w := c.Request(), c.Response()
	switch {
	case rest == "/" || rest == "":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			return writeStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the JSON-RPC endpoint answers POST only; the agent card is at %s", base+cardPath).WithHTTPStatus(http.StatusMethodNotAllowed))
		}
		if !s.declares(a, wire.BindingJSONRPC) {
			return s.refuseUndeclared(w, r, a, wire.BindingJSONRPC, base)
		}
		return s.serveJSONRPC(w, r, a, base)
	case rest == cardPath || rest == legacyCardPath:
		return s.serveCard(w, r, a, base, rest)
	case rest == jwksPath:
		return s.serveJWKS(w, r, a)
	case !s.declares(a, wire.BindingREST):
		if rest == restPrefix || strings.HasPrefix(rest, restPrefix+"/") {
			return s.refuseUndeclared(w, r, a, wire.BindingREST, base)
		}
	case rest == restPrefix || strings.HasPrefix(rest, restPrefix+"/"):
		return s.serveREST(w, r, a, base, strings.TrimPrefix(rest, restPrefix))
	}
	// The HTTP+JSON routes answer at the agent's base URL too, where the
	// a2a CLI and a2a-go post when told to use REST without reading the
	// card (they do not collide with JSON-RPC's POST {agent}/). The card
	// keeps declaring {agent}/rest.
	if _, e := restroute.Parse(r.Method, rest, MaxIDBytes); !restroute.IsNoRoute(e) && s.declares(a, wire.BindingREST) {
		return s.serveREST(w, r, a, base, rest)
	}
	return writeStatusError(w, wire.Errorf(wire.CodeMethodNotFound, "no route %s %s (JSON-RPC: POST %s/, HTTP+JSON: %s%s/... or %s/..., card: %s%s)",
		r.Method, r.URL.Path, base, base, restPrefix, base, base, cardPath).WithHTTPStatus(http.StatusNotFound))
}

// origin is the scheme and host the client reached us by, so card URLs work
// through port mappings and proxies that keep the Host header.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request, a *agent, base, path string) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return writeStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the agent card answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	x, rep := a.exchange(behaviors.OpCard, nil, exchangeHTTP{incomingHTTP{r}})
	x.Signing = a.signing(origin(r), base)
	ent := Entry{Agent: a.name, Kind: EntryCard, Op: behaviors.OpCard, Path: r.URL.Path, Behaviors: rep.Acted, Skipped: rep.Skipped}
	if e := x.Hooks().Reject; e != nil {
		// A behavior scoped to the card answers in its place (http-error).
		ent.ErrorCode, ent.Detail = e.Code, e.Message
	}
	cardSeq := s.record(ent)
	wirecap.Tag(r, 0, cardSeq)
	s.countBehaviors(a, rep)
	acted := s.instrument(x, rep.Owners, cardSeq)
	if hooks := x.Hooks(); len(hooks.Transport) > 0 || hooks.Delay > 0 {
		// A behavior scoped to the card (op=agent-card) faults the fetch
		// on the wire as it would any request.
		if hooks.Delay > 0 {
			acted.AddAll(rep.Owners.Delay, HookDelay)
		}
		t := binding.ApplyTransport(newHTTPTransport(s.host, w, r), hooks)
		if stop, _ := t.Stopped(); stop {
			return nil
		}
		w = t.Writer()
	}
	if e := x.Hooks().Reject; e != nil {
		acted.Add(rep.Owners.Reject, HookReject)
		return writeStatusError(w, e)
	}
	if slices.Contains(x.Hooks().HideCardPath, path) {
		acted.AddAll(rep.Owners.HideCard, HookHideCardPath)
		return writeStatusError(w, wire.Errorf(wire.CodeMethodNotFound, "no agent card at %s", r.URL.Path).WithHTTPStatus(http.StatusNotFound))
	}
	card := a.card
	if hooks := x.Hooks().Card; len(hooks) > 0 {
		c := *card
		c.Skills = slices.Clone(c.Skills)
		for _, f := range hooks {
			f(&c)
		}
		card = &c
	}
	b, err := a.renderCard(card, origin(r), base)
	if err != nil {
		return writeStatusError(w, wire.Errorf(wire.CodeInternal, "render card: %v", err))
	}
	for _, f := range x.Hooks().CardJSON {
		b = f(b)
	}
	if b, err = a.signCard(b, x, x.Signing); err != nil {
		return writeStatusError(w, wire.Errorf(wire.CodeInternal, "sign card: %v", err))
	}
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	modified := a.cardModified(origin(r)+r.URL.Path, etag)
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	// Behaviors can change the card at run time, so clients revalidate.
	h.Set("Cache-Control", cardCacheControl)
	if cardNotModified(r, etag, modified) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", contentTypeJSON)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
	return nil
}

// etagMatches applies If-None-Match (RFC 9110 §13.1.2): a list of entity
// tags compared weakly, or "*".
func etagMatches(headers []string, etag string) bool {
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// checkContentType accepts JSON media types (and a missing header, which
// several clients send for JSON-RPC).
func checkContentType(r *http.Request) *wire.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == contentTypeJSON || mt == contentTypeA2A || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return wire.Errorf(wire.CodeInvalidRequest, "unsupported Content-Type %q: send application/json or application/a2a+json", ct).WithHTTPStatus(http.StatusUnsupportedMediaType)
}

// requestedVersion reads A2A-Version from the header or the query; empty
// means 0.3 (v1.0 §1.6).
func requestedVersion(r *http.Request) string {
	v := r.Header.Get(versionHeader)
	if v == "" {
		v = r.URL.Query().Get(versionHeader)
	}
	return strings.TrimSpace(v)
}

// checkVersion applies the A2A-Version rules (wire.CheckVersion) to a
// request for dialect d.
func (s *Server) checkVersion(r *http.Request, d wire.Dialect) *wire.Error {
	return wire.CheckVersion(requestedVersion(r), d, s.cfg.StrictVersion)
}

// rpcReply answers a JSON-RPC request: id is nil until the envelope is
// decoded, codec until the method is known.
type rpcReply struct {
	id    json.RawMessage
	codec wire.Codec
}

func (rr rpcReply) Fail(w http.ResponseWriter, e *wire.Error) error {
	var data []byte
	if rr.codec != nil {
		data = rr.codec.EncodeErrorData(e)
	} else if len(e.Data) > 0 {
		data, _ = json.Marshal(e.Data)
	}
	status := http.StatusOK
	if e.HTTPStatus != 0 {
		status = e.HTTPStatus
	}
	return writeJSON(w, status, contentTypeJSON, wire.EncodeRPCError(rr.id, e, data))
}

func (rr rpcReply) AuthError(e *wire.Error) *wire.Error { return rpcAuthError(e) }

func (rr rpcReply) Result(w http.ResponseWriter, op wire.Op, res *wire.Result) error {
	out, err := rr.codec.EncodeResult(op, res)
	if err != nil {
		return rr.Fail(w, wire.Errorf(wire.CodeInternal, "encode result: %v", err))
	}
	return writeJSON(w, http.StatusOK, contentTypeJSON, wire.EncodeRPCResult(rr.id, out))
}

func (rr rpcReply) Framer() binding.Framer { return rpcFramer(rr) }

func (rr rpcReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return newHTTPTransport(h, w, r)
}

func writeJSON(w http.ResponseWriter, status int, ct string, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// writeStatusError answers outside the bindings (routing, cards) with the
// google.rpc.Status body the v1.0 HTTP+JSON binding uses.
func writeStatusError(w http.ResponseWriter, e *wire.Error) error {
	status, body := wire.EncodeRESTError(e)
	return writeJSON(w, status, contentTypeJSON, body)
}

// serveJSONRPC is the JSON-RPC binding of every dialect: one endpoint,
// dispatched on the method name.
func (s *Server) serveJSONRPC(w http.ResponseWriter, r *http.Request, a *agent, base string) error {
	var rr rpcReply
	if e := checkContentType(r); e != nil {
		return rr.Fail(w, e)
	}
	body, e := binding.ReadBody(r, s.cfg.MaxBodyBytes)
	if e != nil {
		return rr.Fail(w, e)
	}
	rpc, e := wire.DecodeRPC(body)
	rr.id = rpc.ID
	if e != nil {
		return rr.Fail(w, e)
	}
	if rpc.ID == nil {
		return rr.Fail(w, wire.Errorf(wire.CodeInvalidRequest, `invalid request: "id" is required (A2A has no notifications)`))
	}
	d, op, ok := wire.LookupMethod(rpc.Method)
	if !ok {
		return rr.Fail(w, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", rpc.Method).With("method", rpc.Method))
	}
	d = a.methodDialect(d, rpc.Method)
	rr.codec = wire.CodecFor(d)
	if e := s.checkVersion(r, d); e != nil {
		return rr.Fail(w, e)
	}
	req, e := rr.codec.DecodeParams(op, rpc.Params)
	if e != nil {
		if !binding.ParamError(e) || a.Gate(op) == nil {
			return rr.Fail(w, e)
		}
		// Capability before parameters: an operation the card does not
		// declare is refused as such whatever its parameters.
		req = &wire.Request{Op: op}
	}
	if other := a.sharedMethodTaskDialect(d, rpc.Method, req.TaskID); other != "" {
		// A task is answered in the shape of the generation that created
		// it on the methods v0.1 shares with v0.3 (tasks/get, tasks/cancel,
		// tasks/resubscribe).
		if r2, e2 := wire.CodecFor(other).DecodeParams(op, rpc.Params); e2 == nil {
			d, req, rr.codec = other, r2, wire.CodecFor(other)
		}
	}
	req.Method, req.Binding, req.Dialect = rpc.Method, wire.BindingJSONRPC, d
	return s.serveRequest(w, r, a, base, req, rr)
}

// methodDialect picks the dialect that serves a JSON-RPC method found in
// dialect d: on a method name several dialects share the card says which
// one the agent speaks (wire.AnswerDialect).
func (a *agent) methodDialect(d wire.Dialect, method string) wire.Dialect {
	return wire.AnswerDialect(d, a.card.Dialect, method)
}

// sharedMethodTaskDialect returns the dialect a request of dialect d about
// task id is answered in when it differs from d (the dialect that created
// the task: wire.TaskAnswerDialect); "" otherwise.
func (a *agent) sharedMethodTaskDialect(d wire.Dialect, method, id string) wire.Dialect {
	if id == "" {
		return ""
	}
	return wire.TaskAnswerDialect(d, method, func() wire.Dialect { return a.eng.TaskDialect(id) })
}

// serveRequest is what both bindings do with a decoded request: journal it,
// check the credentials, apply the behaviors' hooks and answer it, unary or
// streamed.
func (s *Server) serveRequest(w http.ResponseWriter, r *http.Request, a *agent, base string, req *wire.Request, rp binding.Reply) error {
	if a.dynamic {
		// Removing the agent ends the request as a client leaving would:
		// behaviors that hold it, delays and waits all watch its context.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(a.ctx, cancel)()
		r = r.WithContext(ctx)
	}
	if e := s.checkSizes(req); e != nil && a.Gate(req.Op) == nil {
		reqNo, _ := s.recordRequest(a, req, r.URL.Path, requestedVersion(r))
		wirecap.Tag(r, reqNo, 0)
		s.recordResponse(a, req, reqNo, nil, e)
		return rp.Fail(w, e)
	}
	reqNo, seq := s.recordRequest(a, req, r.URL.Path, requestedVersion(r))
	wirecap.Tag(r, reqNo, 0)
	if e := s.checkAuth(a, r, req); e != nil {
		s.recordResponse(a, req, reqNo, nil, e)
		if e.Code == wire.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2amock"`)
		}
		return rp.Fail(w, rp.AuthError(e))
	}
	x, rep := a.exchange(req.Op, req, exchangeHTTP{incomingHTTP{r}})
	s.noteBehaviors(a, seq, rep)
	acted := s.instrument(x, rep.Owners, seq)
	if req.Op == wire.OpExtendedCard {
		x.Signing = a.signing(origin(r), base)
	}
	hooks := x.Hooks()
	if strings.HasSuffix(req.Method, " "+LegacySubscribeRoute) {
		if !hooks.LegacySubscribe {
			e := wire.Errorf(wire.CodeMethodNotFound, "no HTTP+JSON route %s %s: SubscribeToTask is at /tasks/{id}:subscribe", r.Method, r.URL.Path).WithHTTPStatus(http.StatusNotFound)
			s.recordResponse(a, req, reqNo, nil, e)
			return rp.Fail(w, e)
		}
		acted.Add(rep.Owners.Legacy, HookLegacySubscribe)
	}
	if hooks.Delay > 0 {
		acted.AddAll(rep.Owners.Delay, HookDelay)
	}
	if len(hooks.Transport) > 0 || hooks.Delay > 0 {
		t := binding.ApplyTransport(rp.Transport(s.host, w, r), hooks)
		if stop, e := t.Stopped(); stop {
			if e != nil {
				s.recordResponse(a, req, reqNo, nil, e)
			}
			return nil
		}
		w = t.Writer()
	}
	if hooks.Reject != nil {
		acted.Add(rep.Owners.Reject, HookReject)
		s.recordResponse(a, req, reqNo, nil, hooks.Reject)
		return rp.Fail(w, hooks.Reject)
	}
	if req.Op.Streaming() {
		return s.serveStream(w, r, a, req, x, reqNo, rp.Framer(), rep.Owners.StreamEvent, acted)
	}
	res, e := a.serveUnary(r.Context(), req, x, origin(r), base)
	for _, f := range hooks.Result {
		res, e = f(res, e)
	}
	s.recordResponse(a, req, reqNo, res, e)
	if e != nil {
		return rp.Fail(w, e)
	}
	return rp.Result(w, req.Op, res)
}

// delay waits d unless the client leaves or the server closes first.
func (s *Server) delay(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	fired, stop := s.clock.NewTimer(d)
	defer stop()
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	case <-s.ctx.Done():
		return false
	}
}

// recordRequest journals a decoded request with the A2A-Version it carried;
// it returns the request's number and the journal entry's sequence number.
func (s *Server) recordRequest(a *agent, req *wire.Request, path, version string) (reqNo, seq int64) {
	n := s.reqSeq.Add(1)
	e := Entry{Agent: a.name, Kind: EntryRequest, Op: req.Op, Method: req.Method, Dialect: req.Dialect,
		Binding: req.Binding, Request: n, TaskID: journalID(req.TaskID), Path: journalPath(path), Version: journalID(version)}
	if req.Op == wire.OpListTasks {
		e.PageToken = journalID(req.List.PageToken)
	}
	if m := req.Message; m != nil {
		e.RefTaskID, e.ContextID, e.MessageID = journalID(m.TaskID), journalID(m.ContextID), journalID(m.MessageID)
		sum := sha256.Sum256([]byte(m.Text()))
		e.MessageDigest = hex.EncodeToString(sum[:8])
		for k := range m.Metadata {
			e.MetadataKeys = append(e.MetadataKeys, k)
		}
		slices.Sort(e.MetadataKeys)
	}
	return n, s.record(e)
}

func (s *Server) recordResponse(a *agent, req *wire.Request, reqNo int64, res *wire.Result, err *wire.Error) {
	e := Entry{Agent: a.name, Kind: EntryResponse, Op: req.Op, Method: req.Method, Dialect: req.Dialect,
		Binding: req.Binding, Request: reqNo, TaskID: journalID(req.TaskID)}
	if err != nil {
		e.ErrorCode, e.Detail = err.Code, err.Message
	}
	if res != nil && res.Task != nil {
		e.TaskID, e.ContextID, e.State = res.Task.ID, res.Task.ContextID, res.Task.Status.State
	}
	if res != nil && res.Page != nil {
		e.PageToken = res.Page.NextPageToken
	}
	if req.Message != nil {
		e.RefTaskID = journalID(req.Message.TaskID)
	}
	s.record(e)
}
