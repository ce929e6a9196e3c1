package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/a2amock/a2amock/record/internal/locate"
	"github.com/a2amock/a2amock/wire"
)

// Problem is one thing wrong with a recording file, at a position.
type Problem struct {
	// Line and Column are 1-based; 0 when no one place is at fault.
	Line, Column int
	// Path locates the value in the document, e.g. exchanges[2] for the
	// third exchange; "" for the file as a whole.
	Path string
	// Message says what is wrong.
	Message string
}

// LoadError lists what is wrong with a recording file; Load and LoadFile
// return it, and Validate one without positions.
type LoadError struct {
	// File is the file LoadFile read; "" from Load.
	File     string
	Problems []Problem
}

// Error renders one problem a line, as file:line:col: path: message (the
// way scenario files are reported).
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.render(p)
	}
	return strings.Join(lines, "\n")
}

func (e *LoadError) render(p Problem) string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("record")
	}
	b.WriteString(":")
	if p.Line > 0 {
		if e.File == "" {
			b.WriteString(" ") // record:12:9 would read as a file name
		}
		fmt.Fprintf(&b, "%d:%d:", p.Line, p.Column)
	}
	b.WriteString(" ")
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadFile reads the recording at path; its errors name the file.
func LoadFile(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := load(b)
	var le *LoadError
	if errors.As(err, &le) {
		le.File = path
	}
	return r, err
}

// Load reads a recording written by Save or SaveYAML (JSON is recognised by
// its leading '{'). Unknown fields are errors, so a typo in a hand-edited
// recording is not silently ignored; every error is a *LoadError that says
// where (line, column and path) the problem is.
//
// A non-streamed exchange with a JSON response and no contentType (as one
// is written by hand) is answered as application/json: the response member
// holds only JSON, so that is what it was.
func Load(rd io.Reader) (*Recording, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("record: read: %w", err)
	}
	return load(b)
}

func load(src []byte) (*Recording, error) {
	trimmed := bytes.TrimSpace(src)
	if len(trimmed) == 0 {
		return nil, &LoadError{Problems: []Problem{{Message: "empty recording"}}}
	}
	isYAML := trimmed[0] != '{'
	b := src
	if isYAML {
		j, err := yaml.YAMLToJSON(src)
		if err != nil {
			p := Problem{Message: "invalid YAML: " + strings.TrimSpace(err.Error())}
			var ye yaml.Error
			if errors.As(err, &ye) {
				p.Message = "invalid YAML: " + ye.GetMessage()
				if tk := ye.GetToken(); tk != nil && tk.Position != nil {
					p.Line, p.Column = tk.Position.Line, tk.Position.Column
				}
			}
			return nil, &LoadError{Problems: []Problem{p}}
		}
		b = j
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	doc := locate.Doc{Src: src, JSON: b, YAML: isYAML, Root: reflect.TypeFor[Recording](),
		Wants: map[reflect.Type]string{reflect.TypeFor[Duration](): `a duration such as "250ms"`}}
	var r Recording
	if err := dec.Decode(&r); err != nil {
		// The decoder says what, rarely where and never in which
		// exchange: the scan finds the place.
		var p Problem
		p.Line, p.Column, p.Path, p.Message = doc.DecodeError(err)
		return nil, &LoadError{Problems: []Problem{p}}
	}
	r.inferContentTypes()
	r.compactJSON()
	if err := r.Validate(); err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			for i := range le.Problems {
				le.Problems[i].Line, le.Problems[i].Column = doc.Position(le.Problems[i].Path)
			}
		}
		return nil, err
	}
	return &r, nil
}

// compactJSON writes the JSON bodies and events back in the compact form
// the proxy recorded them in: Save indents them with the file, and a
// replay would otherwise send them indented, a stream's event as many
// data: lines, where the upstream sent one.
func (r *Recording) compactJSON() {
	for i := range r.Exchanges {
		x := &r.Exchanges[i]
		if len(x.Request) > 0 {
			x.Request = compact(x.Request)
		}
		if len(x.Response) > 0 {
			x.Response = compact(x.Response)
		}
		for j := range x.Events {
			if len(x.Events[j].Data) > 0 {
				x.Events[j].Data = compact(x.Events[j].Data)
			}
		}
	}
}

// inferContentTypes gives a non-streamed JSON response without a
// contentType (written by hand) application/json, the type the proxy
// would have recorded: replay otherwise serves it untyped and journals it
// as an answer that is not JSON.
func (r *Recording) inferContentTypes() {
	for i := range r.Exchanges {
		x := &r.Exchanges[i]
		if x.ContentType == "" && !x.Streamed() && len(x.Response) > 0 {
			x.ContentType = "application/json"
		}
	}
}

// Validate reports a recording this version cannot replay: an unknown
// format version, or an exchange without the fields replay matches on. The
// error is a *LoadError whose problems have paths but no positions.
func (r *Recording) Validate() error {
	var ps []Problem
	add := func(path, format string, a ...any) {
		ps = append(ps, Problem{Path: path, Message: fmt.Sprintf(format, a...)})
	}
	if r.Version != FormatVersion {
		add("version", "version %d: this a2amock reads version %d", r.Version, FormatVersion)
	}
	for i, x := range r.Exchanges {
		at := "exchanges[" + strconv.Itoa(i) + "]"
		switch x.Kind {
		case KindCard, KindJSONRPC, KindREST, KindGRPC:
		default:
			add(at+".kind", "kind %q: use card, jsonrpc, rest or grpc", x.Kind)
		}
		if strings.TrimSpace(x.Method) == "" {
			add(at+".method", "method is empty")
		}
		if _, _, ok := wire.LookupGRPCMethod(x.Path); x.Kind == KindGRPC && !ok {
			add(at+".path", "path %q is not a method of an A2A gRPC service (/lf.a2a.v1.A2AService/SendMessage, say)", x.Path)
		}
		switch {
		case x.Unanswered():
			if x.ContentType != "" || len(x.Response) > 0 || x.Body != "" || x.End != "" || len(x.Events) > 0 || x.GRPCStatus != 0 {
				add(at+".status", "status 0 (no answer) with an answer: an unanswered request has no contentType, response, body, events, end or grpcStatus")
			}
		case x.Status < 100 || x.Status > 599:
			add(at+".status", "status %d is not an HTTP status (0: the agent never answered)", x.Status)
		}
		switch x.End {
		case "", EndEOF, EndTruncated, EndClientGone, EndError, EndOpen:
		default:
			add(at+".end", "end %q: use eof, truncated, client-gone, error or open", x.End)
		}
		if x.End == "" && len(x.Events) > 0 {
			add(at+".events", "events without end: a streamed answer says how it ended")
		}
		for j, ev := range x.Events {
			if len(ev.Data) > 0 && ev.Text != "" {
				add(fmt.Sprintf("%s.events[%d]", at, j), "data and text are exclusive")
			}
		}
	}
	if len(ps) > 0 {
		return &LoadError{Problems: ps}
	}
	return nil
}
