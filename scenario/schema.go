package scenario

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// SchemaID is the $id of the format's JSON Schema.
const SchemaID = "https://a2amock.dev/schemas/scenario.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the scenario format,
// reflected from the Go types: the same yaml keys, enums and required keys
// the parser checks. It is shipped as docs/scenario.schema.json (go generate
// ./scenario writes it) so editors can complete and check files; add
//
//	# yaml-language-server: $schema=../../docs/scenario.schema.json
//
// at the top of a file for editors that use the YAML language server.
//
// It is generated here rather than with a reflection library because two
// shapes of the format need hand-written schemas anyway (a behavior is a
// string or a mapping; a duration is a string with a unit), and the enums
// and required keys come from the same struct tags the parser reads.
func Schema() []byte {
	g := &schemaGen{defs: map[string]any{}}
	root := g.structSchema(reflect.TypeFor[Scenario]())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "a2amock scenario"
	root["$defs"] = g.defs
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		// Only maps, slices and strings are marshalled.
		panic(err)
	}
	return append(b, '\n')
}

type schemaGen struct {
	defs map[string]any
}

func (g *schemaGen) typeSchema(t reflect.Type, f *reflect.StructField) map[string]any {
	var s map[string]any
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		s = map[string]any{"$ref": "#/$defs/Duration"}
		if _, ok := g.defs["Duration"]; !ok {
			g.defs["Duration"] = map[string]any{
				"description": "a Go duration: a number with a unit, e.g. 50ms, 2s, 1m30s (units ns, us, ms, s, m, h)",
				"anyOf": []any{
					map[string]any{"type": "string", "pattern": `^\s*(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*\s*$`},
					map[string]any{"const": 0},
				},
			}
		}
	case t == behaviorType:
		s = map[string]any{"$ref": "#/$defs/Behavior"}
		if _, ok := g.defs["Behavior"]; !ok {
			g.defs["Behavior"] = map[string]any{} // placeholder against recursion
			g.defs["Behavior"] = map[string]any{
				"description": "a behavior from the catalogue: the text form name:key=value,... or the structured form",
				"oneOf": []any{
					map[string]any{"type": "string", "minLength": 1, "description": "name or name:key=value,key=value (as a2amock serve --behavior reads)"},
					g.ref(t),
				},
			}
		}
	default:
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
			s["enum"] = vals
			if len(vals) > len(strings.Split(enum, ",")) {
				delete(s, "type")
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
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	name := t.Name()
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = map[string]any{} // placeholder against recursion
		g.defs[name] = g.structSchema(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []any
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := yamlKey(f)
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
