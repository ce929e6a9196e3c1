// Package ui is the timeline view of a journal: the page the control API
// serves at /_a2amock/ui (live, from the journal's event stream) and the
// self-contained HTML report a2amock report writes from a saved journal or a
// conform run. Both are the same page: one HTML file with its style and
// script inlined (embedded in the binary, no network, no build step); only
// the data block differs.
package ui

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/a2amock/a2amock/behaviors"
)

//go:embed assets/page.html
var pageHTML string

//go:embed assets/app.css
var appCSS string

//go:embed assets/app.js
var appJS string

var page = template.Must(template.New("page").Parse(pageHTML))

// StreamPath is the control-API path of the journal's event stream the
// live page reads.
const StreamPath = "/_a2amock/journal/stream"

// WirePath is the control-API path of the raw bytes of one exchange, which
// the live page's detail view reads.
const WirePath = "/_a2amock/journal/wire"

// config is the data block of the page: how to get the entries, and the
// behaviors' documentation the fault markers link to.
type config struct {
	Mode   string            `json:"mode"`
	Title  string            `json:"title"`
	Stream string            `json:"stream,omitempty"`
	Wire   string            `json:"wire,omitempty"`
	Docs   map[string]string `json:"docs"`
	// Data is the journal or conform report, as given.
	Data json.RawMessage `json:"data,omitempty"`
}

func behaviorDocs() map[string]string {
	docs := map[string]string{}
	for _, sp := range behaviors.Catalogue().Specs() {
		docs[sp.Name] = sp.Doc
	}
	return docs
}

// WriteLive writes the live page: it reads the journal from the control
// API's event stream (StreamPath) on the server that served it.
func WriteLive(w io.Writer) error {
	return render(w, config{Mode: "live", Title: "a2amock — live timeline", Stream: StreamPath, Wire: WirePath, Docs: behaviorDocs()})
}

// WriteReport writes the report page for data, which must be a journal
// (the JSON of GET /_a2amock/journal, or a bare array of its entries) or
// the JSON report of a conform run; Check tells which and why not.
func WriteReport(w io.Writer, data []byte, title string) error {
	kind, err := Check(data)
	if err != nil {
		return err
	}
	return writeReport(w, data, kind, title)
}

// writeReport writes the report page for data, already checked to be of
// kind.
func writeReport(w io.Writer, data []byte, kind Kind, title string) error {
	if title == "" {
		title = "a2amock report"
		if kind == KindConform {
			title = "a2amock conform report"
		}
	}
	return render(w, config{Mode: "report", Title: title, Docs: behaviorDocs(), Data: json.RawMessage(bytes.TrimSpace(data))})
}

func render(w io.Writer, cfg config) error {
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	// "<" only occurs inside JSON strings, where \u003c means the same: the
	// data block then cannot end the script element or open a comment.
	b = bytes.ReplaceAll(b, []byte("<"), []byte(`\u003c`))
	return page.Execute(w, map[string]any{
		"Title":  cfg.Title,
		"CSS":    template.CSS(appCSS),
		"JS":     template.JS(appJS),
		"Config": template.JS(b),
	})
}

// Kind names what a report's input is.
type Kind string

// The inputs WriteReport accepts.
const (
	KindJournal Kind = "journal"
	KindConform Kind = "conform"
)

// ConformSchema is the schema URL of a conform run's JSON report.
const ConformSchema = "https://a2amock.dev/schemas/conform-report"

type entryShape struct {
	Seq  *int64 `json:"seq"`
	Kind string `json:"kind"`
}

// Check reports whether data is a journal or a conform report, with an
// error that says where it is not.
func Check(data []byte) (Kind, error) {
	lead := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
	file := data
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", errorf("the file is empty: give a journal (GET /_a2amock/journal) or a conform JSON report")
	}
	// at places an error decoding data at its line and column in the file.
	at := func(what string, err error) error {
		msg, off := jsonErr(data, err)
		return errorAt(file, lead+off, what+": "+msg)
	}
	const notEntries = "the entries are not a list of journal entries"
	if data[0] == '[' {
		var es []entryShape
		if err := json.Unmarshal(data, &es); err != nil {
			return KindJournal, at(notEntries, err)
		}
		return KindJournal, checkEntries(es)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", at("not JSON", err)
	}
	if _, ok := top["entries"]; ok {
		var doc struct {
			Entries []entryShape `json:"entries"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return KindJournal, at(notEntries, err)
		}
		return KindJournal, checkEntries(doc.Entries)
	}
	if raw, ok := top["schema"]; ok {
		var schema string
		_ = json.Unmarshal(raw, &schema)
		if schema != ConformSchema {
			return "", errorf("schema %q is not a conform report's (%s)", schema, ConformSchema)
		}
		var rep struct {
			Scenarios []json.RawMessage `json:"scenarios"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return "", at("not a conform report", err)
		}
		return KindConform, nil
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "", errorf("neither a journal (an object with \"entries\") nor a conform report (an object with \"schema\"); its keys: %s", strings.Join(keys, ", "))
}

// checkEntries refuses decoded entries that are not journal entries.
func checkEntries(es []entryShape) error {
	for i, e := range es {
		if e.Seq == nil || e.Kind == "" {
			return errorf("entry %d has no seq or kind: not a journal entry", i)
		}
	}
	return nil
}

// jsonErr words a decoding error of data and says at which byte (0-based)
// it is: the last one the decoder read.
func jsonErr(data []byte, err error) (string, int64) {
	switch e := err.(type) {
	case *json.SyntaxError:
		if e.Error() == "unexpected end of JSON input" {
			return "the JSON ends early (truncated?)", int64(len(data))
		}
		return e.Error(), e.Offset - 1
	case *json.UnmarshalTypeError:
		return "a " + e.Value + " where " + e.Type.String() + " belongs", e.Offset - 1
	}
	if err.Error() == "unexpected end of JSON input" {
		return "the JSON ends early (truncated?)", int64(len(data))
	}
	return err.Error(), 0
}

// WriteReportFile reads the journal or conform report at in ("-": standard
// input) and writes its report page to out ("-": standard output), through
// a temporary file renamed into place so a failed run leaves no half file.
func WriteReportFile(in, out, title string, stdin io.Reader, stdout io.Writer) error {
	var data []byte
	var err error
	if in == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(in)
	}
	if err != nil {
		return err
	}
	// Checked before anything is created, and only once: a journal of
	// 100,000 entries takes a while to decode.
	kind, err := Check(data)
	if err != nil {
		return err
	}
	if out == "-" {
		bw := bufio.NewWriterSize(stdout, 1<<16)
		if err := writeReport(bw, data, kind, title); err != nil {
			return err
		}
		return bw.Flush()
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".a2amock-report-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := writeReport(bw, data, kind, title); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}
