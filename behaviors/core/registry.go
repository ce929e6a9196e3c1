package core

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/internal/suggest"
)

// Spec describes one registered behavior.
type Spec struct {
	// Name is the kebab-case name the behavior is parsed by.
	Name string
	// Doc says which real-world failure the behavior reproduces and which
	// client-side invariant it tests.
	Doc string
	// New returns a fresh behavior with its parameters at their defaults. It
	// must return a pointer to a struct whose parameters are fields tagged
	// `param:"key"` (with an optional `doc:"..."`).
	New func() Behavior
}

// Param describes one parameter of a behavior, read from its struct tags.
type Param struct {
	Key     string
	Type    string
	Doc     string
	Default string
}

// Params lists the parameters of the behavior the spec builds.
func (s Spec) Params() []Param {
	b := s.New()
	v := reflect.ValueOf(b)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	var out []Param
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		key := f.Tag.Get("param")
		if key == "" {
			continue
		}
		out = append(out, Param{Key: key, Type: typeName(f.Type), Doc: f.Tag.Get("doc"), Default: formatValue(v.Field(i))})
	}
	return out
}

// Validator is implemented by behaviors whose parameters need checking
// beyond their types; Parse calls it.
type Validator interface {
	Validate() error
}

// Resetter is implemented by behaviors that keep state between requests
// (counters, remembered ids); the server calls Reset when it is reset.
type Resetter interface {
	Reset()
}

// Registry maps names to behavior specs. It is an explicit value — there is
// no global registration by init — so a program can build its own catalogue.
type Registry struct {
	specs map[string]Spec
	order []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{specs: map[string]Spec{}} }

// Register adds a spec; a duplicate or malformed name is an error.
func (r *Registry) Register(s Spec) error {
	if s.Name == "" || s.Name != strings.ToLower(s.Name) || strings.ContainsAny(s.Name, " :,=_") {
		return fmt.Errorf("behavior name %q must be kebab-case", s.Name)
	}
	if s.New == nil {
		return fmt.Errorf("behavior %q has no constructor", s.Name)
	}
	if _, dup := r.specs[s.Name]; dup {
		return fmt.Errorf("behavior %q is already registered", s.Name)
	}
	r.specs[s.Name] = s
	r.order = append(r.order, s.Name)
	return nil
}

// MustRegister is Register that panics, for building catalogues in code.
func (r *Registry) MustRegister(specs ...Spec) *Registry {
	for _, s := range specs {
		if err := r.Register(s); err != nil {
			panic(err)
		}
	}
	return r
}

// Lookup returns the spec registered under name.
func (r *Registry) Lookup(name string) (Spec, bool) {
	s, ok := r.specs[name]
	return s, ok
}

// Specs returns the registered specs sorted by name.
func (r *Registry) Specs() []Spec {
	names := slices.Clone(r.order)
	slices.Sort(names)
	out := make([]Spec, len(names))
	for i, n := range names {
		out[i] = r.specs[n]
	}
	return out
}

// Names returns the registered names sorted.
func (r *Registry) Names() []string {
	names := slices.Clone(r.order)
	slices.Sort(names)
	return names
}

// Parse builds a behavior from text of the form "name" or
// "name:key=value,key=value". Keys are the behavior's own parameters or the
// scope keys every behavior takes (see Scope). Lists inside a value are
// separated by "|". Unknown names and keys are errors that list the valid
// ones. The result is always a *Scoped.
func (r *Registry) Parse(text string) (*Scoped, error) {
	text = strings.TrimSpace(text)
	name, args, _ := strings.Cut(text, ":")
	name = strings.TrimSpace(name)
	spec, ok := r.specs[name]
	if !ok {
		if near := suggest.Nearest(name, r.Names()); near != "" {
			return nil, fmt.Errorf("unknown behavior %q (did you mean %q?); valid behaviors: %s", name, near, strings.Join(r.Names(), ", "))
		}
		return nil, fmt.Errorf("unknown behavior %q; valid behaviors: %s", name, strings.Join(r.Names(), ", "))
	}
	b := spec.New()
	var scope Scope
	v := reflect.ValueOf(b)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("behavior %q: constructor must return a pointer to a struct", name)
	}
	v = v.Elem()
	fields := map[string]reflect.Value{}
	var keys []string
	for i := 0; i < v.NumField(); i++ {
		if key := v.Type().Field(i).Tag.Get("param"); key != "" {
			fields[key] = v.Field(i)
			keys = append(keys, key)
		}
	}
	var errs []error
	given := map[string]bool{}
	if strings.TrimSpace(args) != "" {
		for _, kv := range strings.Split(args, ",") {
			key, val, found := strings.Cut(strings.TrimSpace(kv), "=")
			key = strings.TrimSpace(key)
			if !found {
				errs = append(errs, fmt.Errorf("behavior %q: %q is not key=value", name, kv))
				continue
			}
			if given[key] {
				// Which one would win is nobody's guess: lists are a|b.
				errs = append(errs, fmt.Errorf("behavior %q: %s is given twice; give one value, or a list as a|b where the key takes one", name, key))
				continue
			}
			given[key] = true
			if f, ok := fields[key]; ok {
				if err := setValue(f, strings.TrimSpace(val)); err != nil {
					errs = append(errs, fmt.Errorf("behavior %q: parameter %s: %w", name, key, err))
				}
				continue
			}
			handled, err := scope.set(key, strings.TrimSpace(val))
			if err != nil {
				errs = append(errs, fmt.Errorf("behavior %q: scope %s: %w", name, key, err))
				continue
			}
			if !handled {
				valid := append(slices.Clone(keys), ScopeKeys...)
				errs = append(errs, fmt.Errorf("behavior %q: unknown parameter %q; valid parameters: %s", name, key, strings.Join(valid, ", ")))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if vb, ok := b.(Validator); ok {
		if err := vb.Validate(); err != nil {
			return nil, fmt.Errorf("behavior %q: %w", name, err)
		}
	}
	return &Scoped{Behavior: b, Scope: scope, Name: name, Text: text}, nil
}

func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return "duration"
	case t.Kind() == reflect.Slice:
		return "list of " + typeName(t.Elem()) + " (a|b|c)"
	}
	return t.Kind().String()
}

func formatValue(v reflect.Value) string {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatValue(v.Index(i))
		}
		return strings.Join(parts, "|")
	case reflect.String:
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}

func setValue(f reflect.Value, s string) error {
	if f.Type() == reflect.TypeOf(time.Duration(0)) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. 250ms, 2s)", s)
		}
		f.SetInt(int64(d))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		f.SetFloat(x)
	case reflect.Slice:
		parts := strings.Split(s, "|")
		out := reflect.MakeSlice(f.Type(), len(parts), len(parts))
		for i, p := range parts {
			if err := setValue(out.Index(i), strings.TrimSpace(p)); err != nil {
				return err
			}
		}
		f.Set(out)
	default:
		return fmt.Errorf("unsupported parameter type %s", f.Type())
	}
	return nil
}
