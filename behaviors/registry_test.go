package behaviors_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/behaviors/lifecycle"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func TestParseUnknownNameListsValidNames(t *testing.T) {
	t.Parallel()
	_, err := behaviors.Parse("no-such-behavior:x=1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown behavior "no-such-behavior"`)
	assert.Contains(t, err.Error(), "valid behaviors: "+strings.Join(behaviors.Catalogue().Names(), ", "))
}

func TestParseUnknownKeyListsValidKeys(t *testing.T) {
	t.Parallel()
	_, err := behaviors.Parse("stuck-submitted:forever=1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown parameter "forever"`)
	assert.Contains(t, err.Error(), "valid parameters: for, beyond-estimate, "+strings.Join(behaviors.ScopeKeys, ", "))
}

func TestParseBadValues(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"stuck-submitted:for=soon":                  `"soon" is not a duration`,
		"stuck-submitted:beyond-estimate=maybe":     `"maybe" is not true or false`,
		"duplicate-terminal:count=two":              `"two" is not an integer`,
		"duplicate-terminal:count":                  `"count" is not key=value`,
		"never-terminal:call=0":                     `"0" is not a call number`,
		"never-terminal:calls=3-1":                  `"3-1" is not a call range`,
		"never-terminal:probability=1.5":            `"1.5" is not a probability`,
		"never-terminal:dialect=2.0":                `"2.0" is not a dialect`,
		"never-terminal:binding=grpc":               `"grpc" is not a binding`,
		"never-terminal:text=(":                     `"(" is not a regular expression`,
		"forget-task:ttl=-1s":                       "ttl must be positive",
		"status-for-other-task:state=done":          `state "done" is not a task state`,
		"context-id-drift:where=events|nowhere":     `"nowhere" is not events or result`,
		"new-task-id-on-continuation:keep-context=": `"" is not true or false`,
	} {
		_, err := behaviors.Parse(spec)
		if assert.Error(t, err, spec) {
			assert.Contains(t, err.Error(), want, spec)
		}
	}
	// Every bad key of one spec is reported, not only the first.
	_, err := behaviors.Parse("duplicate-terminal:count=x,after=y,zzz=1")
	require.Error(t, err)
	for _, want := range []string{`"x" is not an integer`, `"y" is not a duration`, `unknown parameter "zzz"`} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestParseParamsAndScope(t *testing.T) {
	t.Parallel()
	s, err := behaviors.Parse(" duplicate-terminal : count=3, after=250ms, skill=ask, op=send|stream, dialect=1.0|0.3, binding=HTTP+JSON, if-metadata=a, unless-metadata=tenant, text=^go, calls=2-4, probability=0.25 ")
	require.NoError(t, err)
	assert.Equal(t, "duplicate-terminal", s.Name)
	b := s.Behavior.(*lifecycle.DuplicateTerminal)
	assert.Equal(t, 3, b.Count)
	assert.Equal(t, 250*time.Millisecond, b.After)
	sc := s.Scope
	assert.Equal(t, "ask", sc.Skill)
	assert.Equal(t, []wire.Op{wire.OpSend, wire.OpStream}, sc.Ops)
	assert.Equal(t, []wire.Dialect{wire.V10, wire.V03}, sc.Dialects)
	assert.Equal(t, []wire.Binding{wire.BindingREST}, sc.Bindings)
	assert.Equal(t, "a", sc.IfMetadata)
	assert.Equal(t, "tenant", sc.UnlessMetadata)
	assert.True(t, sc.Text.MatchString("go on"))
	assert.Equal(t, 2, sc.CallFrom)
	assert.Equal(t, 4, sc.CallTo)
	assert.Equal(t, 0.25, sc.Probability)
	assert.Equal(t, s.Text, s.String())

	// Defaults survive when a spec names no parameters.
	s, err = behaviors.Parse("new-task-id-on-continuation")
	require.NoError(t, err)
	assert.True(t, s.Behavior.(*lifecycle.NewTaskIDOnContinuation).KeepContext)
	s, err = behaviors.Parse("never-terminal:calls=3-")
	require.NoError(t, err)
	assert.Equal(t, 3, s.Scope.CallFrom)
	assert.Zero(t, s.Scope.CallTo)
}

func TestRegistryParams(t *testing.T) {
	t.Parallel()
	reg := behaviors.Catalogue()
	sp, ok := reg.Lookup("stuck-submitted")
	require.True(t, ok)
	assert.Equal(t, []behaviors.Param{
		{Key: "for", Type: "duration", Default: "0s", Doc: "how long the task stays submitted before its timeline goes on; 0 (with beyond-estimate false) means for ever"},
		{Key: "beyond-estimate", Type: "bool", Default: "false", Doc: "add the skill's declared estimatedDuration to for, so the task leaves submitted only after the card said it would be done"},
	}, sp.Params())
	sp, _ = reg.Lookup("context-id-drift")
	assert.Equal(t, []behaviors.Param{{Key: "where", Type: "list of string (a|b|c)", Default: "events|result",
		Doc: "where the drifted contextId appears: events (status and artifact updates), result (the task or message a unary call answers)"}}, sp.Params())
	sp, _ = reg.Lookup("skip-working")
	assert.Empty(t, sp.Params())

	// Every catalogue entry documents itself and each of its parameters,
	// and parses with its defaults.
	for _, sp := range reg.Specs() {
		assert.NotEmpty(t, sp.Doc, sp.Name)
		for _, p := range sp.Params() {
			assert.NotEmpty(t, p.Doc, "%s: %s", sp.Name, p.Key)
		}
		_, err := reg.Parse(sp.Name)
		assert.NoError(t, err, sp.Name)
	}
}

func TestRegistryRegister(t *testing.T) {
	t.Parallel()
	reg := behaviors.NewRegistry()
	nb := func() behaviors.Behavior { return &lifecycle.NeverTerminal{} }
	require.NoError(t, reg.Register(behaviors.Spec{Name: "mine", New: nb}))
	assert.ErrorContains(t, reg.Register(behaviors.Spec{Name: "mine", New: nb}), "already registered")
	assert.ErrorContains(t, reg.Register(behaviors.Spec{Name: "Not_Kebab", New: nb}), "kebab-case")
	assert.ErrorContains(t, reg.Register(behaviors.Spec{Name: "no-ctor"}), "no constructor")
	assert.Panics(t, func() { reg.MustRegister(behaviors.Spec{Name: "mine", New: nb}) })
	assert.Equal(t, []string{"mine"}, reg.Names())
	// A registry is independent of the catalogue.
	_, err := reg.Parse("skip-working")
	assert.ErrorContains(t, err, "valid behaviors: mine")
	// Two catalogues do not share state.
	a, b := behaviors.Catalogue(), behaviors.Catalogue()
	require.NoError(t, a.Register(behaviors.Spec{Name: "extra", New: nb}))
	_, ok := b.Lookup("extra")
	assert.False(t, ok)
}

// The same seed and behavior set give the same journal (ids, states, event
// order; times stripped), probabilistic behaviors included; another seed
// does not.
func TestDeterministicJournal(t *testing.T) {
	t.Parallel()
	specs := []string{
		"new-task-id-on-continuation:unless-metadata=tenant,probability=0.5,hold=false",
		"status-for-other-task:task=minted,probability=0.5",
		"context-id-drift:probability=0.5",
		"duplicate-terminal:probability=0.5",
		"ignore-cancel:probability=0.5",
		"mint-task-for-unknown-id:keep-id=false,probability=0.5",
	}
	run := func(seed uint64) []server.Entry {
		var bs []behaviors.Behavior
		for _, s := range specs {
			bs = append(bs, parse(t, s))
		}
		r := newLifecycleRig(t, func(c *server.Config) { c.Seed = seed }, bs...)
		for i := range 6 {
			a := r.sendTo(wire.V10, message(wire.V10, "go", "ask", ""))
			r.sendTo(wire.V10, message(wire.V10, "more", "ask", a.Task.ID))
			_, err := r.streamUpTo(wire.V03, message(wire.V03, "go", "quick", ""), 20)
			require.NoError(t, err)
			r.sendTo(wire.V03, message(wire.V03, "lost", "quick", "unknown-"+string(rune('a'+i))))
			r.cancel(wire.V10, a.Task.ID)
			r.get(wire.V10, a.Task.ID)
		}
		entries := r.srv.Journal().Entries()
		for i := range entries {
			// Message ids are the test client's, unique per message.
			entries[i].Time, entries[i].MessageID = time.Time{}, ""
		}
		return entries
	}
	first, second := run(11), run(11)
	require.NotEmpty(t, first)
	// probability=0.5 really splits the continuations between the fault
	// and the honest path, so the comparison covers the seeded draw.
	faulty, honest := 0, 0
	for _, e := range first {
		if e.Kind == server.EntryDecision && strings.Contains(e.Detail, "new-task-id-on-continuation") {
			faulty++
		}
		if e.Kind == server.EntryDecision && strings.HasPrefix(e.Detail, "continue:") {
			honest++
		}
	}
	assert.Positive(t, faulty)
	assert.Positive(t, honest)
	assert.Equal(t, first, second)
	assert.NotEqual(t, first, run(12), "the seed matters")
}

func TestParseSuggestsTheClosestName(t *testing.T) {
	t.Parallel()
	_, err := behaviors.Parse("never-termnal")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "never-terminal"?`)
	_, err = behaviors.Parse("skip-workin:skill=x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "skip-working"?`)
	_, err = behaviors.Parse("zzzzzzzzzzzz")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "did you mean", "nothing is close")
}

// probability is "that fraction of matching requests": 0 and NaN are
// refused rather than read as the zero Scope's "always" (probability=0 used
// to apply the behavior to every request, NaN too, while 1e-300 applied it
// to almost none).
func TestParseProbabilityZeroOrNaN(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"http-error:probability=0", "http-error:probability=0.0", "http-error:probability=NaN", "http-error:probability=-0"} {
		_, err := behaviors.Parse(spec)
		if assert.Error(t, err, spec) {
			assert.Contains(t, err.Error(), "is not a probability", spec)
		}
	}
	for _, spec := range []string{"http-error:probability=1", "http-error:probability=0.001"} {
		_, err := behaviors.Parse(spec)
		assert.NoError(t, err, spec)
	}
}

// An empty method name matches no request, so method= (or a stray |) would
// leave the behavior silently inactive; Parse refuses it as it refuses an
// empty op or dialect.
func TestParseEmptyMethod(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"http-error:method=", "http-error:method=GetTask|"} {
		_, err := behaviors.Parse(spec)
		if assert.Error(t, err, spec) {
			assert.Contains(t, err.Error(), "scope method", spec)
		}
	}
	_, err := behaviors.Parse("http-error:method=GetTask|message/send")
	assert.NoError(t, err)
}

// A key given twice is refused: for a parameter or call= the last value
// used to win, for op= both were kept, and nothing said which.
func TestParseRefusesARepeatedKey(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"duplicate-terminal:count=2,count=3", "skip-working:call=1,call=2", "skip-working:op=send,op=stream"} {
		_, err := behaviors.Parse(spec)
		if assert.Error(t, err, spec) {
			assert.Contains(t, err.Error(), "is given twice", spec)
		}
	}
	_, err := behaviors.Parse("skip-working:op=send|stream,call=1")
	assert.NoError(t, err, "a list is one value")
}
