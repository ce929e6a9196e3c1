package cardsig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JCS returns the RFC 8785 (JSON Canonicalization Scheme) form of the JSON
// text in: object members sorted by the UTF-16 code units of their names,
// no insignificant whitespace, numbers as ECMAScript serialises IEEE 754
// doubles, strings with the minimal JSON escaping. Input that is not
// I-JSON (invalid UTF-8, duplicate member names, numbers outside double
// range) is an error.
func JCS(in []byte) ([]byte, error) {
	if !utf8.Valid(in) {
		return nil, errors.New("jcs: input is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jcs: data after the JSON value")
	}
	return appendJCS(nil, v)
}

// member is one object member, kept in order for the duplicate check.
type member struct {
	name  string
	value any
}

// decodeValue reads one JSON value as nil, bool, json.Number, string,
// []any or []member.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jcs: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			out := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			out := []member{}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("jcs: %w", err)
				}
				k, _ := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("jcs: duplicate member name %q", k)
				}
				seen[k] = true
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, member{k, v})
			}
			_, err := dec.Token()
			return out, err
		}
	case string:
		if !utf8.ValidString(t) {
			return nil, errors.New("jcs: string is not valid UTF-8")
		}
		return t, nil
	}
	return tok, nil
}

func appendJCS(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, fmt.Errorf("jcs: number %s is not an IEEE 754 double", t)
		}
		s, err := Number(f)
		if err != nil {
			return nil, err
		}
		return append(b, s...), nil
	case string:
		return appendString(b, t), nil
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJCS(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []member:
		ms := slices.Clone(t)
		slices.SortFunc(ms, func(x, y member) int {
			return slices.Compare(utf16.Encode([]rune(x.name)), utf16.Encode([]rune(y.name)))
		})
		b = append(b, '{')
		for i, m := range ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.name)
			b = append(b, ':')
			var err error
			if b, err = appendJCS(b, m.value); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("jcs: unexpected value %T", v)
}

// appendString writes s with JSON's minimal escaping, as ECMAScript's
// JSON.stringify does: \" \\ \b \f \n \r \t, other controls as \u00xx,
// everything else as is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if r < 0x20 {
				b = append(b, fmt.Sprintf(`\u%04x`, r)...)
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return append(b, '"')
}

// Number serialises f as ECMAScript's Number.prototype.toString does
// (ECMA-262 Number::toString), which RFC 8785 §3.2.2.3 requires. NaN and
// the infinities are not JSON and are errors.
func Number(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("jcs: %v is not a JSON number", f)
	}
	if f == 0 {
		return "0", nil
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// The shortest digits that round-trip, and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		out = digits[:1]
		if k > 1 {
			out += "." + digits[1:]
		}
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		out += "e" + es + strconv.Itoa(abs(n-1))
	}
	return sign + out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
