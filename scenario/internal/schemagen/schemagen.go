// Package schemagen reflects a JSON Schema (draft 2020-12) from the Go types
// of a YAML format whose structs carry yaml, enum, enumnum, required and doc
// tags. Package scenario uses it for the scenario format; the types whose
// schema cannot be reflected (a duration string, a string-or-mapping) are
// passed in as Specials. It is not a general reflection library: it knows
// only the kinds the scenario format uses.
package schemagen

import (
	"reflect"
	"strconv"
	"strings"
)

// Special gives the schema of a type that reflection cannot describe. It is
// defined once in $defs under Name; Schema receives the generator's ref
// function to refer to reflected structs.
type Special struct {
	Type   reflect.Type
	Name   string
	Schema func(ref func(reflect.Type) map[string]any) map[string]any
}

// Generate returns the schema of the struct type root, with every struct it
// reaches (and every Special) under "$defs".
func Generate(root reflect.Type, specials []Special) map[string]any {
	g := &generator{defs: map[string]any{}, special: map[reflect.Type]Special{}}
	for _, sp := range specials {
		g.special[sp.Type] = sp
	}
	s := g.structSchema(root)
	s["$defs"] = g.defs
	return s
}

// YAMLKey is the key under which f appears in YAML, and false when it does
// not (unexported, or tagged "-").
func YAMLKey(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("yaml")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, true
}

type generator struct {
	defs    map[string]any
	special map[reflect.Type]Special
}

func (g *generator) typeSchema(t reflect.Type, f *reflect.StructField) map[string]any {
	var s map[string]any
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sp, ok := g.special[t]; ok {
		s = map[string]any{"$ref": "#/$defs/" + sp.Name}
		if _, ok := g.defs[sp.Name]; !ok {
			g.defs[sp.Name] = map[string]any{} // placeholder against recursion
			g.defs[sp.Name] = sp.Schema(g.ref)
		}
	} else {
		switch t.Kind() {
		case reflect.Struct:
			s = g.ref(t)
		case reflect.Slice:
			s = map[string]any{"type": "array", "items": g.typeSchema(t.Elem(), nil)}
		case reflect.Map:
			elem := g.typeSchema(t.Elem(), nil)
			if t.Elem().Kind() == reflect.Interface {
				elem = map[string]any{"oneOf": []any{
					map[string]any{"type": []any{"string", "number", "boolean"}},
					map[string]any{"type": "array", "items": map[string]any{"type": []any{"string", "number", "boolean"}}},
				}}
			}
			s = map[string]any{"type": "object", "additionalProperties": elem}
		case reflect.Interface:
			s = map[string]any{}
		case reflect.String:
			s = map[string]any{"type": "string"}
		case reflect.Bool:
			s = map[string]any{"type": "boolean"}
		case reflect.Uint64:
			s = map[string]any{"type": "integer", "minimum": 0}
		default:
			s = map[string]any{"type": "integer"}
		}
	}
	if f != nil {
		if enum := f.Tag.Get("enum"); enum != "" {
			var vals []any
			for _, v := range strings.Split(enum, ",") {
				vals = append(vals, v)
			}
			// Numbers too, for an unquoted 1.0 or 0.3 the parser accepts.
			for _, v := range strings.Split(f.Tag.Get("enumnum"), ",") {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					vals = append(vals, x)
				}
			}
			// On a list the tag names the values of its items: an enum on
			// the array itself would match no array at all, and editors
			// would flag every valid list.
			target := s
			if items, ok := s["items"].(map[string]any); ok && t.Kind() == reflect.Slice {
				target = items
			}
			target["enum"] = vals
			if len(vals) > len(strings.Split(enum, ",")) {
				delete(target, "type")
			}
		}
		if doc := f.Tag.Get("doc"); doc != "" {
			if _, isRef := s["$ref"]; isRef {
				s = map[string]any{"allOf": []any{s}, "description": doc}
			} else {
				s["description"] = doc
			}
		}
	}
	return s
}

// ref defines the struct t in $defs once and refers to it.
func (g *generator) ref(t reflect.Type) map[string]any {
	name := t.Name()
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = map[string]any{} // placeholder against recursion
		g.defs[name] = g.structSchema(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

func (g *generator) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []any
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := YAMLKey(f)
		if !ok {
			continue
		}
		props[key] = g.typeSchema(f.Type, &f)
		if f.Tag.Get("required") == "true" {
			required = append(required, key)
		}
	}
	s := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}
