package control

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/wire"
)

// methodRouter registers the control routes on the group and remembers the
// methods of each path, so that a call with another method on a served
// path is answered 405 with an Allow header. Echo cannot do that here: the
// agents' catch-all route and the group's own not-found route make it
// answer such a call 404, which tells a user with a typo in a method that
// the path does not exist.
//
// A GET route answers HEAD too, as GET without the body (net/http's
// semantics for its own handlers; echo routes HEAD to nothing).
type methodRouter struct {
	g     router
	mw    []echo.MiddlewareFunc
	allow map[string][]string
	paths []string
}

// router is what echo.Echo and echo.Group have in common to register
// routes.
type router interface {
	Add(method, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route
	Match(methods []string, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) []*echo.Route
}

// MethodNotAllowedRoute names the routes that answer 405, so that a list
// of the echo routes can tell them from the control API's own.
const MethodNotAllowedRoute = "control.methodNotAllowed"

// HeadRoute names the HEAD routes registered with each GET route, which
// are GET's operation rather than one of their own.
const HeadRoute = "control.head"

// newMethodRouter registers routes on g, each behind middleware mw.
func newMethodRouter(g router, mw ...echo.MiddlewareFunc) *methodRouter {
	return &methodRouter{g: g, mw: mw, allow: map[string][]string{}}
}

// methods are those a 405 is answered for; one outside them (a WebDAV
// method, say) meets the not-found answer.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace}

func (r *methodRouter) add(method, path string, h echo.HandlerFunc) {
	r.g.Add(method, path, h, r.mw...)
	if _, seen := r.allow[path]; !seen {
		r.paths = append(r.paths, path)
	}
	r.allow[path] = append(r.allow[path], method)
	if method == http.MethodGet {
		r.g.Add(http.MethodHead, path, head(h), r.mw...).Name = HeadRoute
		r.allow[path] = append(r.allow[path], http.MethodHead)
	}
}

// head serves HEAD with GET's handler: net/http discards the body it
// writes. The request's context ends as the header goes out, so that a
// stream (the journal's) ends there instead of sending nothing until the
// client leaves, holding its connection.
func head(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithCancel(c.Request().Context())
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		c.Response().Before(cancel)
		return h(c)
	}
}

// GET, POST, PUT and DELETE register a route, as echo.Group's methods do.
func (r *methodRouter) GET(path string, h echo.HandlerFunc)    { r.add(http.MethodGet, path, h) }
func (r *methodRouter) POST(path string, h echo.HandlerFunc)   { r.add(http.MethodPost, path, h) }
func (r *methodRouter) PUT(path string, h echo.HandlerFunc)    { r.add(http.MethodPut, path, h) }
func (r *methodRouter) DELETE(path string, h echo.HandlerFunc) { r.add(http.MethodDelete, path, h) }

// refuseOtherMethods registers, on every path added so far, the 405 answer
// for each method the path does not serve.
func (r *methodRouter) refuseOtherMethods() {
	for _, path := range r.paths {
		allowed := r.allow[path]
		others := slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return slices.Contains(allowed, m) })
		allow := strings.Join(allowed, ", ")
		routes := r.g.Match(others, path, func(c echo.Context) error {
			c.Response().Header().Set("Allow", allow)
			req := c.Request()
			return controlError(c, http.StatusMethodNotAllowed, wire.GRPCStatusName(http.StatusMethodNotAllowed),
				"the control API answers "+req.URL.Path+" to "+allow+" only, not "+req.Method+"; its routes are described at "+Prefix+"/openapi.json", nil)
		}, r.mw...)
		for _, rt := range routes {
			rt.Name = MethodNotAllowedRoute
		}
	}
}
