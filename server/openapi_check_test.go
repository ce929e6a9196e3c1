package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/a2amock/a2amock/server"
)

// openAPI is the control API's OpenAPI description, compiled once: every
// response the server tests get from /_a2amock/ is checked against it by
// the harness's transport (openAPICheck).
var openAPI = sync.OnceValues(func() (*openAPIDoc, error) {
	raw := server.OpenAPI()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	res, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("openapi.json", res); err != nil {
		return nil, err
	}
	return &openAPIDoc{doc: doc, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

type openAPIDoc struct {
	doc      map[string]any
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// operation finds the operation a request path and method stand for, and
// its JSON pointer.
func (d *openAPIDoc) operation(method, path string) (map[string]any, string, bool) {
	paths, _ := d.doc["paths"].(map[string]any)
	for tmpl, item := range paths {
		if !pathMatches(tmpl, path) {
			continue
		}
		op, ok := item.(map[string]any)[strings.ToLower(method)].(map[string]any)
		if !ok {
			return nil, "", false
		}
		ptr := "#/paths/" + strings.ReplaceAll(strings.ReplaceAll(tmpl, "~", "~0"), "/", "~1") + "/" + strings.ToLower(method)
		return op, ptr, true
	}
	return nil, "", false
}

func pathMatches(tmpl, path string) bool {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if strings.HasPrefix(ts[i], "{") || ts[i] == ps[i] {
			continue
		}
		return false
	}
	return true
}

// check validates one control-API response against the description.
func (d *openAPIDoc) check(method, path string, status int, ct string, body []byte) error {
	// HEAD is GET without the body, not an operation of its own.
	head := method == http.MethodHead
	if head {
		method = http.MethodGet
	}
	op, ptr, ok := d.operation(method, path)
	if !ok {
		return fmt.Errorf("%s %s is not described in openapi.json", method, path)
	}
	responses, _ := op["responses"].(map[string]any)
	code := strconv.Itoa(status)
	resp, ok := responses[code].(map[string]any)
	respPtr := ptr + "/responses/" + code
	if !ok {
		return fmt.Errorf("%s %s answered %d, which openapi.json does not list (body %s)", method, path, status, body)
	}
	if ref, ok := resp["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/responses/")
		resp, _ = d.doc["components"].(map[string]any)["responses"].(map[string]any)[name].(map[string]any)
		respPtr = "#/components/responses/" + name
	}
	content, _ := resp["content"].(map[string]any)
	if head {
		if len(body) != 0 {
			return fmt.Errorf("HEAD %s answered %d with a body", path, status)
		}
		return nil
	}
	if len(content) == 0 {
		if len(body) != 0 {
			return fmt.Errorf("%s %s answered %d with a body where openapi.json lists none", method, path, status)
		}
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("%s %s: Content-Type %q: %v", method, path, ct, err)
	}
	if _, ok := content[mt]; !ok {
		return fmt.Errorf("%s %s answered %d as %s; openapi.json lists %v", method, path, status, mt, content)
	}
	if mt != "application/json" {
		return nil
	}
	loc := "openapi.json" + respPtr + "/content/application~1json/schema"
	d.mu.Lock()
	sch, ok := d.schemas[loc]
	if !ok {
		sch, err = d.compiler.Compile(loc)
		if err != nil {
			d.mu.Unlock()
			return fmt.Errorf("compile %s: %v", loc, err)
		}
		d.schemas[loc] = sch
	}
	d.mu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s answered %d with invalid JSON: %v", method, path, status, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s answered %d with a body openapi.json does not allow: %v\nbody: %s", method, path, status, err, body)
	}
	return nil
}

// openAPICheck wraps a transport so that every /_a2amock/ response is
// validated against the OpenAPI description; a mismatch fails the test.
type openAPICheck struct {
	t    testing.TB
	next http.RoundTripper
}

func (o openAPICheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := o.next.RoundTrip(r)
	if err != nil || !strings.HasPrefix(r.URL.Path, "/_a2amock/") {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" || mt == "text/html" {
		return resp, nil // streamed or browser answers are not bodies to validate
	}
	body, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	doc, derr := openAPI()
	if derr != nil {
		o.t.Errorf("openapi.json: %v", derr)
		return resp, nil
	}
	if r.Method == http.MethodHead {
		body = nil
	}
	if err := doc.check(r.Method, r.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), body); err != nil {
		o.t.Errorf("control API response against openapi.json: %v", err)
	}
	return resp, nil
}
