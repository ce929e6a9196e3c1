package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/a2amock/a2amock/internal/yamlnode"
	"github.com/a2amock/a2amock/scenario/internal/schemagen"
	"github.com/goccy/go-yaml/ast"
)

// position is a 1-based line and column in the file.
type position struct{ Line, Column int }

// positions maps a document path (agents[0].timelines[1].steps[2].after) to
// where its value starts, so checks after decoding can still point at the
// text.
type positions map[string]position

func (p positions) at(path string) position {
	for {
		if pos, ok := p[path]; ok {
			return pos
		}
		// Fall back to the nearest enclosing value that has a position,
		// e.g. for an absent key.
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return position{}
		}
		path = path[:i]
	}
}

func posOf(n ast.Node) position {
	if n == nil {
		return position{}
	}
	// A mapping's own token is a ':' or '{'; its first key is where a
	// reader looks.
	switch v := n.(type) {
	case *ast.MappingNode:
		if len(v.Values) > 0 {
			return posOf(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return posOf(v.Key)
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return position{}
	}
	return position{Line: tk.Position.Line, Column: tk.Position.Column}
}

var (
	durationType = reflect.TypeFor[Duration]()
	behaviorType = reflect.TypeFor[BehaviorSpec]()
)

// checker walks the YAML tree against the Go types before decoding, so that
// every unknown key, wrong type, bad enum value and bad duration is reported
// at once with its position — a decoder stops at the first.
type checker struct {
	ps  *problems
	pos positions
	// raw keeps the text of enum scalars: an unquoted 1.0 decodes into a
	// string as "1", but the writer meant the dialect "1.0".
	raw map[string]string
}

func structKeys(t reflect.Type) ([]string, map[string]reflect.StructField) {
	var keys []string
	fields := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if k, ok := schemagen.YAMLKey(f); ok {
			keys = append(keys, k)
			fields[k] = f
		}
	}
	return keys, fields
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (c *checker) walk(n ast.Node, t reflect.Type, path string, field *reflect.StructField) {
	if n == nil {
		return
	}
	if tag := yamlnode.ValuelessTag(n); tag != nil {
		// go-yaml's decoder dereferences the missing value when the field
		// is a list (it panics), and makes "" or an error of it elsewhere.
		c.pos[path] = posOf(tag)
		c.ps.add(posOf(tag), path, "the YAML tag %s has no value after it (or a null one): write the value after the tag, or leave the tag out", tag.Start.Value)
		return
	}
	n = yamlnode.Unwrap(n)
	c.pos[path] = posOf(n)
	if _, null := n.(*ast.NullNode); null {
		return
	}
	if _, alias := n.(*ast.AliasNode); alias {
		return // the anchor it refers to is checked where it is defined
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	where := posOf(n)
	switch {
	case t == durationType:
		if !yamlnode.IsScalar(n) {
			c.ps.add(where, path, "expected a duration such as 50ms, 2s or 1m30s, found %s", yamlnode.Describe(n))
			return
		}
		if _, err := parseDuration(yamlnode.ScalarText(n)); err != nil {
			c.ps.add(where, path, "%v", err)
		}
		return
	case t == behaviorType:
		switch n.(type) {
		case *ast.StringNode, *ast.LiteralNode:
			return
		}
		if yamlnode.IsScalar(n) {
			c.ps.add(where, path, "expected a behavior: a string like \"skip-working:skill=x\" or a mapping {name, params, scope}, found %s", yamlnode.Describe(n))
			return
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		values, ok := yamlnode.MappingValues(n)
		if !ok {
			if t == behaviorType {
				c.ps.add(where, path, "expected a behavior: a string like \"skip-working:skill=x\" or a mapping {name, params, scope}, found %s", yamlnode.Describe(n))
			} else {
				c.ps.add(where, path, "expected a mapping, found %s", yamlnode.Describe(n))
			}
			return
		}
		keys, fields := structKeys(t)
		seen := map[string]bool{}
		for _, mv := range values {
			k := yamlnode.ScalarText(yamlnode.Unwrap(mv.Key))
			kp := join(path, k)
			f, ok := fields[k]
			if !ok {
				c.ps.addKey(posOf(mv.Key), path, "", "unknown key %q; valid keys: %s", k, strings.Join(keys, ", "))
				continue
			}
			if seen[k] {
				c.ps.addKey(posOf(mv.Key), path, "", "key %q appears twice", k)
			}
			seen[k] = true
			c.walk(mv.Value, f.Type, kp, &f)
		}
		for _, k := range keys {
			if fields[k].Tag.Get("required") == "true" && !seen[k] {
				// What a check of the absent value would say is this again.
				c.ps.addKey(where, path, join(path, k), "missing key %q", k)
			}
		}
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			c.ps.add(where, path, "expected a list, found %s", yamlnode.Describe(n))
			return
		}
		for i, v := range seq.Values {
			c.walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), field)
		}
	case reflect.Map:
		values, ok := yamlnode.MappingValues(n)
		if !ok {
			c.ps.add(where, path, "expected a mapping, found %s", yamlnode.Describe(n))
			return
		}
		for _, mv := range values {
			k := yamlnode.ScalarText(yamlnode.Unwrap(mv.Key))
			c.walk(mv.Value, t.Elem(), join(path, k), nil)
		}
	case reflect.Interface:
		// any value
	case reflect.String:
		if !yamlnode.IsScalar(n) {
			c.ps.add(where, path, "expected a string, found %s", yamlnode.Describe(n))
			return
		}
		if field != nil {
			if enum := field.Tag.Get("enum"); enum != "" {
				choices := strings.Split(enum, ",")
				v := yamlnode.ScalarText(n)
				if !slices.Contains(choices, v) {
					c.ps.add(where, path, "%q is not valid; valid values: %s", v, strings.Join(choices, ", "))
				}
				c.raw[path] = v
			}
		}
	case reflect.Bool:
		if _, ok := n.(*ast.BoolNode); !ok {
			c.ps.add(where, path, "expected true or false, found %s", yamlnode.Describe(n))
		}
	case reflect.Uint64, reflect.Int, reflect.Int64:
		if _, ok := n.(*ast.IntegerNode); !ok || strings.HasPrefix(yamlnode.ScalarText(n), "-") && t.Kind() == reflect.Uint64 {
			c.ps.add(where, path, "%s", yamlnode.IntegerProblem(n, t.Kind() == reflect.Uint64))
		}
	}
}

// parseDuration reads a Duration's text; the error names the syntax.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration: write a non-negative number with a unit, e.g. 50ms, 2s, 1m30s (units: ns, us, ms, s, m, h)", s)
	}
	return d, nil
}
