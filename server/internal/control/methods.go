package control

import (
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
type methodRouter struct {
	g     *echo.Group
	allow map[string][]string
	paths []string
}

// MethodNotAllowedRoute names the routes that answer 405, so that a list
// of the echo routes can tell them from the control API's own.
const MethodNotAllowedRoute = "control.methodNotAllowed"

func newMethodRouter(g *echo.Group) *methodRouter {
	return &methodRouter{g: g, allow: map[string][]string{}}
}

// methods are those a 405 is answered for; one outside them (a WebDAV
// method, say) meets the not-found answer.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace}

func (r *methodRouter) add(method, path string, h echo.HandlerFunc) {
	r.g.Add(method, path, h)
	if _, seen := r.allow[path]; !seen {
		r.paths = append(r.paths, path)
	}
	r.allow[path] = append(r.allow[path], method)
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
		})
		for _, rt := range routes {
			rt.Name = MethodNotAllowedRoute
		}
	}
}
