package wire_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allOps is every canonical operation in the order of the Op constants.
var allOps = []wire.Op{wire.OpSend, wire.OpStream, wire.OpGetTask, wire.OpListTasks, wire.OpCancelTask,
	wire.OpSubscribe, wire.OpSetPushConfig, wire.OpGetPushConfig, wire.OpListPushConfigs, wire.OpDeletePush,
	wire.OpExtendedCard}

// TestDescriptorsConsistent enumerates the descriptors and checks each one
// against its codec and against the others: adding a dialect with a
// descriptor that contradicts its codec fails here.
func TestDescriptorsConsistent(t *testing.T) {
	t.Parallel()
	descs := wire.Descriptors()
	require.Len(t, descs, len(wire.Dialects), "one descriptor per dialect")
	assert.Equal(t, wire.Dialects[0], wire.Newest())
	for i, desc := range descs {
		d := desc.Dialect
		t.Run(string(d), func(t *testing.T) {
			assert.Equal(t, wire.Dialects[i], d, "descriptors are in the order of Dialects")
			assert.Equal(t, d, wire.Describe(d).Dialect)
			// Spellings round-trip for every state the dialect has.
			for _, s := range []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired,
				wire.StateAuthRequired, wire.StateCompleted, wire.StateCanceled, wire.StateFailed, wire.StateRejected} {
				name := desc.StateName(s)
				require.NotEmpty(t, name, "state %s", s)
				// A lossy dialect (v0.1 has no rejected) spells a state as
				// a neighbour it has, which reads back as itself.
				back, ok := desc.ParseState(name)
				assert.True(t, ok, "state %s spelled %q", s, name)
				assert.Equal(t, name, desc.StateName(back), "state %s", s)
			}
			_, ok := desc.ParseState("no-such-state")
			assert.False(t, ok)
			assert.NotEqual(t, desc.RoleName(wire.RoleUser), desc.RoleName(wire.RoleAgent))
			assert.NotEmpty(t, desc.RoleName(wire.RoleUser))
			assert.True(t, wire.Known(d))
			major, _, ok := strings.Cut(string(d), ".")
			require.True(t, ok, "a dialect is named Major.Minor")
			assert.Equal(t, major, strconv.Itoa(desc.Major), "Major is the dialect name's")
			got, ok := wire.DialectOfVersion(string(d) + ".0")
			assert.True(t, ok)
			assert.Equal(t, d, got)

			c := codecs.For(d)
			require.NotNil(t, c, "every dialect has a codec")
			assert.Equal(t, d, c.Dialect())

			// Ops: in canonical order, each with exactly one method name,
			// and nothing else in the codec.
			var order []int
			for _, op := range desc.Ops {
				order = append(order, slices.Index(allOps, op))
			}
			assert.True(t, slices.IsSorted(order) && !slices.Contains(order, -1), "Ops are known and in Op order: %v", desc.Ops)
			assert.Len(t, c.Methods(), len(desc.Ops), "one method per op")
			for _, op := range allOps {
				name, ok := wire.MethodName(d, op)
				assert.Equal(t, desc.Supports(op), ok, "op %s: the codec has a method exactly when the descriptor names the op", op)
				if !ok {
					continue
				}
				// Round trip: the name leads back to the op, in the newest
				// dialect that has the name as its own.
				ld, lop, found := wire.LookupMethod(name)
				assert.True(t, found, "LookupMethod(%q)", name)
				assert.Equal(t, op, lop, "LookupMethod(%q)", name)
				var want wire.Dialect
				for _, o := range descs {
					if _, has := codecs.For(o.Dialect).Methods()[name]; has && o.MethodNamesOf == "" {
						want = o.Dialect
						break
					}
				}
				assert.Equal(t, want, ld, "LookupMethod(%q)", name)
				assert.Equal(t, d, wire.AnswerDialect(ld, d, name), "an agent of dialect %s answers %s in it", d, name)
			}
			if of := desc.MethodNamesOf; of != "" {
				od := wire.Describe(of)
				require.True(t, wire.Known(of), "MethodNamesOf names a known dialect")
				assert.Empty(t, od.MethodNamesOf, "MethodNamesOf does not chain")
				for name, op := range c.Methods() {
					assert.Equal(t, op, codecs.For(of).Methods()[name], "%s's name %s is %s's", d, name, of)
				}
			}

			require.NotEmpty(t, desc.Bindings)
			assert.Equal(t, wire.BindingJSONRPC, desc.Bindings[0], "JSON-RPC first")
			assert.NotContains(t, desc.Bindings, wire.BindingGRPC, "gRPC is opt-in: GRPC, not Bindings")
			for _, b := range desc.Bindings {
				assert.Contains(t, wire.Describe(wire.ForBinding(b)).Bindings, b)
			}
			if desc.GRPC {
				assert.True(t, wire.Describe(wire.ForBinding(wire.BindingGRPC)).GRPC)
			}

			assert.NotEmpty(t, desc.PushContentType)
			assert.NotEmpty(t, desc.PushTokenHeader)
			assert.NotEmpty(t, desc.InlinePushURLField, "every dialect's send may carry a push config")
			assert.Equal(t, desc.Supports(wire.OpSetPushConfig), desc.PushURLField != "")
			if desc.VersionHeaderOptional {
				assert.Equal(t, wire.Describe(wire.NoHeaderVersion).Major, desc.Major,
					"a request without A2A-Version is %s: only dialects of its major may omit the header", wire.NoHeaderVersion)
			}

			assert.Contains(t, []wire.CardShape{wire.CardShapeV10, wire.CardShapeV03, wire.CardShapeV01}, desc.CardShape)
			if v := desc.CardProtocolVersion; v != "" {
				got, ok := wire.DialectOfVersion(v)
				assert.True(t, ok && got == d, "the card's protocolVersion %q names %s", v, d)
			}
			assert.Equal(t, desc.CardShape == wire.CardShapeV03, desc.CardProtocolVersion != "",
				"the url+protocolVersion shape, and only it, renders protocolVersion")

			raw, err := os.ReadFile(filepath.Join("..", "internal", "schemacheck", "schema", desc.SchemaFile))
			require.NoError(t, err, "the dialect's schema is vendored")
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &top))
			assert.True(t, top["$defs"] != nil || top["definitions"] != nil, "%s has definitions", desc.SchemaFile)
		})
	}
	assert.True(t, wire.Known(wire.NoHeaderVersion))
	assert.True(t, wire.Describe(wire.NoHeaderVersion).VersionHeaderOptional)
	assert.Empty(t, wire.Describe("9.9").Dialect)
	assert.Empty(t, wire.Describe("9.9").StateName(wire.StateWorking))
	_, ok := wire.Describe("9.9").ParseState("working")
	assert.False(t, ok)
	assert.False(t, wire.Known(""))
	assert.Equal(t, "1.0, 0.3, 0.2 or 0.1", wire.DialectNames(", ", " or "))
	assert.Equal(t, "1.0, 0.3", wire.AdvertisedVersions())
	for _, b := range []wire.Binding{wire.BindingJSONRPC, wire.BindingREST, wire.BindingGRPC} {
		assert.True(t, wire.Known(wire.ForBinding(b)), "binding %s is served", b)
	}
	assert.Empty(t, wire.ForBinding("SOAP"))
}

// The functions below are the server's rules as they were written with
// dialect comparisons before the descriptors; the tests check that the
// descriptor-driven functions give the same answers for every input.

func oldMethodDialect(d, card wire.Dialect, method string) wire.Dialect {
	if d != wire.V03 {
		return d
	}
	switch card {
	case wire.V02:
		return wire.V02
	case wire.V01:
		if _, shared := codecs.For(wire.V01).Methods()[method]; shared {
			return wire.V01
		}
	}
	return d
}

func oldSharedMethodTaskDialect(d, td wire.Dialect, method string) wire.Dialect {
	if d != wire.V03 && d != wire.V01 {
		return ""
	}
	if _, shared := codecs.For(wire.V03).Methods()[method]; !shared {
		return ""
	}
	switch {
	case d == wire.V03 && td == wire.V01:
		return wire.V01
	case d == wire.V01 && (td == wire.V03 || td == wire.V02):
		return wire.V03
	}
	return ""
}

func allMethodNames() []string {
	names := []string{"", "nope", "tasks/nope"}
	for _, d := range wire.Dialects {
		for name := range codecs.For(d).Methods() {
			names = append(names, name)
		}
	}
	return names
}

func TestAnswerDialectAsBefore(t *testing.T) {
	t.Parallel()
	cardDialects := append([]wire.Dialect{"", "9.9"}, wire.Dialects...)
	for _, name := range allMethodNames() {
		found, _, ok := wire.LookupMethod(name)
		if !ok {
			continue
		}
		for _, card := range cardDialects {
			assert.Equal(t, oldMethodDialect(found, card, name), wire.AnswerDialect(found, card, name),
				"method %q found in %s, card %s", name, found, card)
		}
	}
}

func TestTaskAnswerDialectAsBefore(t *testing.T) {
	t.Parallel()
	all := append([]wire.Dialect{"", "9.9"}, wire.Dialects...)
	for _, name := range allMethodNames() {
		for _, d := range all {
			for _, td := range all {
				called := false
				got := wire.TaskAnswerDialect(d, name, func() wire.Dialect { called = true; return td })
				want := oldSharedMethodTaskDialect(d, td, name)
				assert.Equal(t, want, got, "method %q of %s, task of %s", name, d, td)
				if d == wire.V10 {
					assert.False(t, called, "a v1.0 request never looks up its task's dialect")
				}
				if !called {
					// Deciding without the task's dialect is right only
					// when no task dialect could change the answer.
					for _, other := range all {
						assert.Empty(t, oldSharedMethodTaskDialect(d, other, name), "method %q of %s, task of %s", name, d, other)
					}
				}
			}
		}
	}
}

func TestCheckVersion(t *testing.T) {
	t.Parallel()
	notSupported := func(msg string) *wire.Error {
		return wire.Errorf(wire.CodeVersionNotSupported, "%s", msg).With("supportedVersions", "1.0, 0.3")
	}
	cases := []struct {
		v      string
		d      wire.Dialect
		strict bool
		want   *wire.Error
	}{
		{"", wire.V10, false, nil},
		{"", wire.V03, true, nil},
		{"", wire.V01, true, nil},
		{"", wire.V10, true, notSupported("version 0.3 (no A2A-Version header) does not serve v1.0 methods; send A2A-Version: 1.0")},
		{"1.0", wire.V10, true, nil},
		{"1.0.0", wire.V10, true, nil},
		{"1.0", wire.V03, false, nil},
		{"0.3", wire.V01, true, nil},
		{"0.2", wire.V03, true, nil},
		{"0.1.7", wire.V02, true, nil},
		{"1.0", wire.V03, true, notSupported("A2A-Version 1.0 does not match the 0.3 method set")},
		{"0.3.0", wire.V10, true, notSupported("A2A-Version 0.3 does not match the 1.0 method set")},
		{"1.0.0.0", wire.V10, false, notSupported(`A2A-Version "1.0.0.0" is not supported; supported: 1.0, 0.3`)},
		{"1.0.x", wire.V10, false, notSupported(`A2A-Version "1.0.x" is not supported; supported: 1.0, 0.3`)},
		{"2.0", wire.V10, false, notSupported(`A2A-Version "2.0" is not supported; supported: 1.0, 0.3`)},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, wire.CheckVersion(c.v, c.d, c.strict), "A2A-Version %q, dialect %s, strict %v", c.v, c.d, c.strict)
	}
}

func TestRESTRoutesAt(t *testing.T) {
	for _, tc := range []struct {
		path string
		want wire.Dialect
		at   int
	}{
		{"/v0.3/v1/message:send", "0.3", 0},
		{"/agents/a/v0.3/v1/tasks/t-1", "0.3", 9},
		{"/v0.3/v1", "", -1},           // no route below it
		{"/rest/message:send", "", -1}, // the v1.0 binding's
		{"/message:send", "", -1},
		{"/v1/tasks/t-1", "", -1},
	} {
		d, at := wire.RESTRoutesAt(tc.path)
		if d != tc.want || at != tc.at {
			t.Errorf("RESTRoutesAt(%q) = %q, %d; want %q, %d", tc.path, d, at, tc.want, tc.at)
		}
	}
}
