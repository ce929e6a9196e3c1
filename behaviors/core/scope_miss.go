package core

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2amock/a2amock/wire"
)

// Miss reports why x is out of scope: the scope key that excluded it
// ("agent", "skill", "op", "method", "dialect", "binding", "if-metadata",
// "unless-metadata", "text", "call", "probability") and a sentence with what
// the request had and what the scope wants. It returns "" when x is in
// scope. Keys are checked in the order Matches checks them, and the
// probability draw happens only when every other key matched, so Miss and
// Matches draw the same numbers.
func (s Scope) Miss(x *Exchange) (key, detail string) {
	if s.Agent != "" && s.Agent != x.Agent {
		return "agent", fmt.Sprintf("request for agent %q; scope wants %q", x.Agent, s.Agent)
	}
	if s.Skill != "" && (x.Skill == nil || x.Skill.ID != s.Skill) {
		if x.Skill == nil {
			return "skill", fmt.Sprintf("%s addresses no skill; scope wants %q", x.Op, s.Skill)
		}
		return "skill", fmt.Sprintf("message went to skill %q; scope wants %q", x.Skill.ID, s.Skill)
	}
	if len(s.Ops) > 0 && !slices.Contains(s.Ops, x.Op) {
		return "op", fmt.Sprintf("op %s; scope wants %s", x.Op, joinAny(s.Ops))
	}
	if len(s.Methods) > 0 && (x.Request == nil || !slices.Contains(s.Methods, x.Request.Method)) {
		m := string(x.Op)
		if x.Request != nil {
			m = x.Request.Method
		}
		return "method", fmt.Sprintf("method %s; scope wants %s", m, strings.Join(s.Methods, "|"))
	}
	if len(s.Dialects) > 0 && !slices.Contains(s.Dialects, x.Dialect) {
		return "dialect", fmt.Sprintf("dialect %q; scope wants %s", x.Dialect, joinAny(s.Dialects))
	}
	if len(s.Bindings) > 0 && !slices.Contains(s.Bindings, x.Binding) {
		return "binding", fmt.Sprintf("binding %q; scope wants %s", x.Binding, joinAny(s.Bindings))
	}
	var msg *wire.Message
	if x.Request != nil {
		msg = x.Request.Message
	}
	if s.IfMetadata != "" {
		if msg == nil {
			return "if-metadata", fmt.Sprintf("%s carries no message; scope wants metadata %q", x.Op, s.IfMetadata)
		}
		if _, ok := msg.Metadata[s.IfMetadata]; !ok {
			return "if-metadata", fmt.Sprintf("message metadata has no %q (keys: %s)", s.IfMetadata, metadataKeys(msg))
		}
	}
	if s.UnlessMetadata != "" && msg != nil {
		if _, ok := msg.Metadata[s.UnlessMetadata]; ok {
			return "unless-metadata", fmt.Sprintf("message metadata has %q", s.UnlessMetadata)
		}
	}
	if s.Text != nil && (msg == nil || !s.Text.MatchString(msg.Text())) {
		if msg == nil {
			return "text", fmt.Sprintf("%s carries no message; scope wants text matching %s", x.Op, s.Text)
		}
		t := msg.Text()
		if len(t) > 60 {
			t = t[:60] + "…"
		}
		return "text", fmt.Sprintf("message text %q does not match %s", t, s.Text)
	}
	if s.CallFrom > 0 && x.Call < s.CallFrom || s.CallTo > 0 && x.Call > s.CallTo {
		want := fmt.Sprintf("%d-", s.CallFrom)
		if s.CallTo > 0 {
			want += fmt.Sprint(s.CallTo)
		}
		if s.CallFrom == s.CallTo {
			want = fmt.Sprint(s.CallFrom)
		}
		return "call", fmt.Sprintf("call %d of %s; scope wants call %s", x.Call, x.Op, want)
	}
	if s.Probability > 0 && s.Probability < 1 {
		if x.Rand == nil {
			return "probability", "no seeded source to draw from"
		}
		if p := x.Rand.Float64(); p >= s.Probability {
			return "probability", fmt.Sprintf("drew %.3f, not below %g", p, s.Probability)
		}
	}
	return "", ""
}

// knownOps are the values the scope key op takes.
var knownOps = []wire.Op{wire.OpSend, wire.OpStream, wire.OpGetTask, wire.OpListTasks, wire.OpCancelTask, wire.OpSubscribe,
	wire.OpSetPushConfig, wire.OpGetPushConfig, wire.OpListPushConfigs, wire.OpDeletePush, wire.OpExtendedCard, OpCard}

func joinAny[T ~string](vs []T) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return strings.Join(out, "|")
}

func metadataKeys(m *wire.Message) string {
	if len(m.Metadata) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m.Metadata))
	for k := range m.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
