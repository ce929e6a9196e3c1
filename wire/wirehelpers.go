package wire

// Helpers every dialect's codec uses: timestamps, base64, field paths and
// the decodeObject reader through which the v0.x codecs see each nested
// object, so that an error names the field it is about.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// timeLayout is RFC 3339 with milliseconds, which is what the SDKs emit.
// formatTime writes UTC, for which Z07:00 is "Z": every dialect's
// timestamps then have the same length and compare as strings.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// formatTime renders a status timestamp, or "" for the zero time (the
// field is then left out).
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// parseTime reads a timestamp as every dialect accepts it: RFC 3339 with
// any number of fractional digits and any offset.
func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// wireStatus is a TaskStatus as every dialect writes it; M is the
// dialect's message.
type wireStatus[M any] struct {
	State     string `json:"state"`
	Message   *M     `json:"message,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

func encodeErrorData(e *Error) []byte {
	if e == nil || len(e.Data) == 0 {
		return nil
	}
	b, err := json.Marshal(e.Data)
	if err != nil {
		return nil
	}
	return b
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func indexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

func rootName(path string) string {
	if path == "" {
		return "params"
	}
	return path
}

func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// decodeObject decodes the JSON object raw, found at path, into v. An absent
// or null value is an error only when required.
func decodeObject(raw json.RawMessage, path string, required bool, v any) (present bool, e *Error) {
	raw = bytes.TrimSpace(raw)
	if isAbsent(raw) {
		if required {
			return false, ErrInvalidParams(rootName(path), "is required")
		}
		return false, nil
	}
	if raw[0] != '{' {
		return false, ErrInvalidParams(rootName(path), "must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := path
			if te.Field != "" {
				field = joinPath(path, te.Field)
			}
			return false, ErrInvalidParams(rootName(field), fmt.Sprintf("must be %s, not %s", jsonKind(te.Type), te.Value))
		}
		return false, ErrInvalidParams(rootName(path), err.Error())
	}
	return true, nil
}

// jsonKind names the JSON type a Go destination type expects.
func jsonKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a JSON value"
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// decodeWithID decodes the params object into v and returns the required id
// that id points at, a field of v; path names that field.
func decodeWithID(params []byte, v any, id **string, path string) (string, *Error) {
	if _, e := decodeObject(params, "", true, v); e != nil {
		return "", e
	}
	return requireString(*id, path)
}

func requireString(s *string, path string) (string, *Error) {
	if s == nil || *s == "" {
		return "", ErrInvalidParams(path, "is required")
	}
	return *s, nil
}

func checkHistoryLength(n *int, path string) *Error {
	if n != nil && *n < 0 {
		return ErrInvalidParams(path, "must not be negative")
	}
	return nil
}

// decodeBase64 accepts padded and unpadded, standard and URL-safe base64:
// clients disagree, and rejecting one of them helps nobody.
func decodeBase64(s string) ([]byte, error) {
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
