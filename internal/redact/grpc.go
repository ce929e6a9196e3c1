package redact

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/a2amock/a2amock/internal/a2apb"
)

// GRPC returns the body of a gRPC call to path (its request when request
// is set, else its answer) with each length-prefixed message redacted as
// JSON redacts a body: string fields whose JSON name is a credential key
// replaced by Mark of their length, URLs redacted. A message that does not
// decode, and a path that is no A2A method, are left as they are; so is a
// message cut short (the raw view keeps the start of a body), which is why
// b is walked message by message.
func GRPC(path string, b []byte, request bool) []byte {
	md := a2apb.MethodAt(path)
	if md == nil {
		return b
	}
	desc := md.Output()
	if request {
		desc = md.Input()
	}
	var out []byte
	for rest := b; len(rest) > 0; {
		compressed, body, next, ok := a2apb.NextMessage(rest)
		if !ok || compressed {
			return append(out, rest...)
		}
		frame := rest[:len(rest)-len(next)]
		rest = next
		msg := dynamicpb.NewMessage(desc)
		if proto.Unmarshal(body, msg) != nil || !protoMessage(msg) {
			out = append(out, frame...)
			continue
		}
		enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
		if err != nil {
			out = append(out, frame...)
			continue
		}
		out = a2apb.AppendMessage(out, enc)
	}
	return out
}

// protoMessage redacts m in place and reports whether it changed.
func protoMessage(m protoreflect.Message) bool {
	changed := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				if nv, ok := protoValue(fd, l.Get(i), fd.JSONName()); ok {
					l.Set(i, nv)
					changed = true
				}
			}
		case fd.IsMap():
			mv := v.Map()
			mv.Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
				if nv, ok := protoValue(fd.MapValue(), e, k.String()); ok {
					mv.Set(k, nv)
					changed = true
				}
				return true
			})
		default:
			if nv, ok := protoValue(fd, v, fd.JSONName()); ok {
				m.Set(fd, nv)
				changed = true
			}
		}
		return true
	})
	return changed
}

// protoValue redacts one value of field fd found under key: a string is
// replaced when key is a credential key or it is a URL that needs it; a
// message is walked (it is changed in place, and returned as it is).
func protoValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, key string) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := v.String()
		if s != "" && credentialKeys[key] {
			return protoreflect.ValueOfString(Mark(len(s))), true
		}
		if r, changed := URL(s, URLMark); changed {
			return protoreflect.ValueOfString(r), true
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		m := v.Message()
		if credentialKeys[key] && structValue(m, key) {
			return v, true
		}
		if protoMessage(m) {
			return v, true
		}
	}
	return v, false
}

// structValue redacts a google.protobuf.Value found under a credential key
// (metadata is a Struct: a map of them) and reports whether it changed: a
// string is marked, a list's strings are.
func structValue(m protoreflect.Message, key string) bool {
	if m.Descriptor().FullName() != "google.protobuf.Value" {
		return false
	}
	fields := m.Descriptor().Fields()
	if sv := fields.ByName("string_value"); m.Has(sv) {
		if s := m.Get(sv).String(); s != "" {
			m.Set(sv, protoreflect.ValueOfString(Mark(len(s))))
			return true
		}
		return false
	}
	lv := fields.ByName("list_value")
	if !m.Has(lv) {
		return false
	}
	changed := false
	values := m.Get(lv).Message()
	l := values.Get(values.Descriptor().Fields().ByName("values")).List()
	for i := 0; i < l.Len(); i++ {
		changed = structValue(l.Get(i).Message(), key) || changed
	}
	return changed
}
