// Package wirejson holds what the dialect codecs share to read and write
// JSON: timestamps, the status shape, error data, field paths for error
// messages, decoding objects that name the field at fault.
package wirejson

// Helpers every dialect's codec uses: timestamps, base64, field paths and
// the DecodeObject reader through which the v0.x codecs see each nested
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

	"github.com/a2amock/a2amock/wire"
)

// timeLayout is RFC 3339 with milliseconds, which is what the SDKs emit.
// FormatTime writes UTC, for which Z07:00 is "Z": every dialect's
// timestamps then have the same length and compare as strings.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime renders a status timestamp, or "" for the zero time (the
// field is then left out).
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// AppendTime appends what FormatTime renders of a time that is not zero.
// Years 0 to 9999 are written digit by digit, the bytes AppendFormat gives
// for timeLayout (the fraction cut, not rounded, to milliseconds) at a
// fraction of its cost: every answered send writes a timestamp.
func AppendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, timeLayout)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(dst,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// ParseTime reads a timestamp as every dialect accepts it: RFC 3339 with
// any number of fractional digits and any offset.
func ParseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// Status is a TaskStatus as every dialect writes it; M is the
// dialect's message.
type Status[M any] struct {
	State     string `json:"state"`
	Message   *M     `json:"message,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

// EncodeErrorData renders the data of e as JSON, or nil when it has none.
func EncodeErrorData(e *wire.Error) []byte {
	if e == nil || len(e.Data) == 0 {
		return nil
	}
	b, err := json.Marshal(e.Data)
	if err != nil {
		return nil
	}
	return b
}

// JoinPath is the path of field name below parent ("a.b").
func JoinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// IndexPath is the path of element i of parent ("a[2]").
func IndexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

func rootName(path string) string {
	if path == "" {
		return "params"
	}
	return path
}

// IsAbsent reports whether raw is missing or null.
func IsAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// DecodeObject decodes the JSON object raw, found at path, into v. An absent
// or null value is an error only when required.
func DecodeObject(raw json.RawMessage, path string, required bool, v any) (present bool, e *wire.Error) {
	raw = bytes.TrimSpace(raw)
	if IsAbsent(raw) {
		if required {
			return false, wire.ErrInvalidParams(rootName(path), "is required")
		}
		return false, nil
	}
	if raw[0] != '{' {
		return false, wire.ErrInvalidParams(rootName(path), "must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := path
			if te.Field != "" {
				field = JoinPath(path, te.Field)
			}
			return false, wire.ErrInvalidParams(rootName(field), fmt.Sprintf("must be %s, not %s", JSONKind(te.Type), te.Value))
		}
		return false, wire.ErrInvalidParams(rootName(path), err.Error())
	}
	return true, nil
}

// JSONKind names the JSON type a Go destination type expects.
func JSONKind(t reflect.Type) string {
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

// DecodeWithID decodes the params object into v and returns the required id
// that id points at, a field of v; path names that field.
func DecodeWithID(params []byte, v any, id **string, path string) (string, *wire.Error) {
	if _, e := DecodeObject(params, "", true, v); e != nil {
		return "", e
	}
	return RequireString(*id, path)
}

// RequireString returns *s, or an InvalidParams error naming path when
// it is missing or empty.
func RequireString(s *string, path string) (string, *wire.Error) {
	if s == nil || *s == "" {
		return "", wire.ErrInvalidParams(path, "is required")
	}
	return *s, nil
}

// CheckHistoryLength refuses a negative historyLength at path.
func CheckHistoryLength(n *int, path string) *wire.Error {
	if n != nil && *n < 0 {
		return wire.ErrInvalidParams(path, "must not be negative")
	}
	return nil
}

// DecodeBase64 accepts padded and unpadded, standard and URL-safe base64:
// clients disagree, and rejecting one of them helps nobody.
func DecodeBase64(s string) ([]byte, error) {
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
