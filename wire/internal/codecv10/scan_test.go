package codecv10

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// reqGen writes SendMessage params the way clients do and the ways they
// should not: keys in other cases, repeated, unknown; null; values of the
// wrong type; strings with escapes, non-ASCII and invalid UTF-8; odd
// white space; and now and then a byte cut or added.
type reqGen struct {
	r *rand.Rand
	b strings.Builder
}

func (g *reqGen) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g *reqGen) ws() {
	if g.chance(6) {
		g.b.WriteString([]string{" ", "\n\t", "\r\n  "}[g.r.IntN(3)])
	}
}

var reqStrings = []string{`"hello"`, `""`, `"m-1"`, `"caf\u00e9"`, `"line\nbreak"`, `"quote\"d"`, "\"caf\xc3\xa9\"", "\"bad\xff\"",
	`"\ud83d\ude00"`, `"ROLE_USER"`, `"ROLE_AGENT"`, `"aGVsbG8="`, `"text/plain"`, `"1"`, `"<&>"`}

func (g *reqGen) str() {
	g.b.WriteString(reqStrings[g.r.IntN(len(reqStrings))])
}

// odd writes a value of some other type now and then; it reports whether
// it did.
func (g *reqGen) odd() bool {
	if !g.chance(12) {
		return false
	}
	g.b.WriteString([]string{`null`, `5`, `-1.5e3`, `true`, `false`, `{}`, `[]`, `[1,2]`, `{"a":null}`, `"x"`}[g.r.IntN(10)])
	return true
}

func (g *reqGen) key(k string) {
	switch g.r.IntN(30) {
	case 0:
		k = strings.ToUpper(k)
	case 1:
		k = strings.ToUpper(k[:1]) + k[1:]
	case 2:
		k = "x" + k
	case 3:
		k = strings.Replace(k, "e", `\u0065`, 1)
	}
	g.b.WriteString(`"` + k + `"`)
	g.ws()
	g.b.WriteByte(':')
	g.ws()
}

// object writes members in a shuffled order, some left out, one
// sometimes repeated.
func (g *reqGen) object(members map[string]func()) {
	// Sorted first, so a seed gives the same requests every run.
	keys := make([]string, 0, len(members))
	for _, k := range slices.Sorted(maps.Keys(members)) {
		if !g.chance(4) {
			keys = append(keys, k)
		}
	}
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	if len(keys) > 0 && g.chance(15) {
		keys = append(keys, keys[0])
	}
	if g.chance(10) {
		keys = append(keys, "unknownMember")
		members["unknownMember"] = func() { g.b.WriteString(`{"deep":[1,{"x":"y"},null,true]}`) }
	}
	g.b.WriteByte('{')
	g.ws()
	for i, k := range keys {
		if i > 0 {
			g.b.WriteByte(',')
			g.ws()
		}
		g.key(k)
		if !g.odd() {
			members[k]()
		}
		g.ws()
	}
	g.b.WriteByte('}')
}

// array writes up to two elements, each one elem writes or, now and
// then, a value of another type.
func (g *reqGen) array(elem func()) {
	g.b.WriteByte('[')
	for i := range g.r.IntN(3) {
		if i > 0 {
			g.b.WriteByte(',')
		}
		if !g.odd() {
			elem()
		}
	}
	g.b.WriteByte(']')
}

func (g *reqGen) strings() { g.array(g.str) }

func (g *reqGen) metadata() {
	g.b.WriteString([]string{`{}`, `{"k":"v"}`, `{"n":1.5,"a":[true,null],"o":{"p":"q"}}`, `{"k":"v","k":"w"}`}[g.r.IntN(4)])
}

func (g *reqGen) part() {
	members := map[string]func(){
		"metadata": g.metadata, "filename": g.str, "mediaType": g.str,
	}
	switch g.r.IntN(4) {
	case 0:
		members["text"] = g.str
	case 1:
		members["raw"] = g.str
	case 2:
		members["url"] = g.str
	default:
		members["data"] = g.metadata
	}
	g.object(members)
}

func (g *reqGen) message() {
	g.object(map[string]func(){
		"messageId": g.str, "contextId": g.str, "taskId": g.str, "role": g.str,
		"parts":    func() { g.array(g.part) },
		"metadata": g.metadata, "extensions": g.strings, "referenceTaskIds": g.strings,
	})
}

func (g *reqGen) params() string {
	g.b.Reset()
	g.object(map[string]func(){
		"tenant": g.str, "message": g.message, "metadata": g.metadata,
		"configuration": func() {
			g.object(map[string]func(){
				"acceptedOutputModes": g.strings,
				"historyLength":       func() { g.b.WriteString([]string{`3`, `"4"`, `0`, `-1`, `2.5`, `"x"`}[g.r.IntN(6)]) },
				"returnImmediately":   func() { g.b.WriteString([]string{`true`, `false`}[g.r.IntN(2)]) },
				"taskPushNotificationConfig": func() {
					g.b.WriteString(`{"url":"https://example.example/hook","token":"t"}`)
				},
			})
		},
	})
	out := g.b.String()
	switch g.r.IntN(40) {
	case 0:
		out = out[:g.r.IntN(len(out))]
	case 1:
		out += "}"
	case 2:
		out += " x"
	}
	return out
}

// typicalParams is what the SDKs send for SendMessage: the fast path must
// take it.
var typicalParams = []string{
	`{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`,
	`{"message":{"messageId":"m-2","contextId":"c","taskId":"t","role":"ROLE_USER","parts":[{"text":"hi","mediaType":"text/plain"},{"url":"https://example.example/f","filename":"f.txt"},{"data":{"k":[1,2]}}],"metadata":{"k":"v"}},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":2,"returnImmediately":true},"metadata":{}}`,
	"{\n  \"message\": {\n    \"messageId\": \"m-3\",\n    \"role\": \"ROLE_USER\",\n    \"parts\": [{\"text\": \"line one\\nline two \\u00e9\"}]\n  }\n}",
}

// TestScanSendReadsAsEncodingJSON reads 50,000 generated params both ways:
// wherever the fast path takes one it must fill exactly what encoding/json
// fills, and encoding/json must have taken it too.
func TestScanSendReadsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	g := &reqGen{r: rand.New(rand.NewPCG(3, 4))}
	taken := 0
	const n = 50_000
	for i := range n {
		raw := g.params()
		if sameSendRead(t, raw) {
			taken++
		}
		if t.Failed() {
			t.Fatalf("input %d: %s", i, raw)
		}
	}
	// The generator bends a rule in most requests; a share of them must
	// still be plain enough for the fast path, or the test checks nothing.
	assert.Greater(t, taken, n/20, "requests the fast path took")
	t.Logf("fast path took %d of %d generated requests", taken, n)
}

// sameSendRead checks one input; it reports whether the fast path took it.
func sameSendRead(t *testing.T, raw string) bool {
	t.Helper()
	var fast, slow v10SendIn
	ok := fast.scan([]byte(raw))
	err := json.Unmarshal([]byte(raw), &slow)
	if !ok {
		return false
	}
	require.NoError(t, err, "the fast path took what encoding/json refuses: %s", raw)
	fast.ignored = ignoredMembers{} // what the fast path notes beside the read; encoding/json notes nothing
	require.True(t, reflect.DeepEqual(slow, fast), "read differently: %s\nencoding/json: %s\nfast path:     %s", raw, dump(slow), dump(fast))
	return true
}

func dump(in v10SendIn) string {
	b, _ := json.Marshal(in)
	return fmt.Sprintf("%s config=%+v", b, in.Configuration)
}

// TestScanSendTakesTypicalRequests checks the fast path takes what the SDKs
// send, and that the request decoded from it is the one encoding/json's
// path gives.
func TestScanSendTakesTypicalRequests(t *testing.T) {
	t.Parallel()
	for _, raw := range typicalParams {
		require.True(t, sameSendRead(t, raw), "the fast path refused %s", raw)
		got, e := Codec.DecodeParams(wire.OpSend, []byte(raw))
		require.Nil(t, e)
		var in v10SendIn
		require.NoError(t, json.Unmarshal([]byte(raw), &in))
		want := &wire.Request{Op: wire.OpSend, Dialect: wire.V10}
		require.Nil(t, decodeSendFrom(&in, want))
		assert.Equal(t, want, got)
	}
}

// The fast path notes the members v1.0 does not define, by path, in the
// order sent and at most wire.MaxIgnored of them; known members in another case
// are encoding/json's (and so read, not ignored).
func TestDecodeNotesIgnoredMembers(t *testing.T) {
	t.Parallel()
	raw := `{"message":{"messageId":"m","role":"ROLE_USER","kind":"message","parts":[{"text":"a"},{"kind":"text","text":"b"}]},` +
		`"configuration":{"blocking":false,"pushNotificationConfig":{"url":"http://127.0.0.1:1/hook"},"returnImmediately":true},"id":"x"}`
	got, e := Codec.DecodeParams(wire.OpSend, []byte(raw))
	require.Nil(t, e)
	assert.Equal(t, []string{"message.kind", "message.parts[1].kind", "configuration.blocking",
		"configuration.pushNotificationConfig", "id"}, got.Ignored)
	assert.True(t, got.Config.ReturnImmediately, "the members defined are read as ever")

	got, e = Codec.DecodeParams(wire.OpStream, []byte(typicalParams[1]))
	require.Nil(t, e)
	assert.Empty(t, got.Ignored, "a request of v1.0 members only ignores none")

	// 15 unknown members beside message (the fast path reads objects of up
	// to 16) and 10 in configuration: the first 16 are noted.
	var many strings.Builder
	many.WriteString(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}]},"configuration":{`)
	for i := range 10 {
		fmt.Fprintf(&many, `"c%d":%d,`, i, i)
	}
	many.WriteString(`"returnImmediately":true}`)
	for i := range 14 {
		fmt.Fprintf(&many, `,"x%d":%d`, i, i)
	}
	many.WriteString("}")
	got, e = Codec.DecodeParams(wire.OpSend, []byte(many.String()))
	require.Nil(t, e)
	require.Len(t, got.Ignored, wire.MaxIgnored)
	assert.Equal(t, "configuration.c0", got.Ignored[0])
	assert.Equal(t, "x5", got.Ignored[wire.MaxIgnored-1])
}

// FuzzScanSend checks the fast path against encoding/json on the fuzzer's
// inputs.
func FuzzScanSend(f *testing.F) {
	for _, raw := range typicalParams {
		f.Add(raw)
	}
	g := &reqGen{r: rand.New(rand.NewPCG(5, 6))}
	for range 50 {
		f.Add(g.params())
	}
	f.Fuzz(func(t *testing.T, raw string) { sameSendRead(t, raw) })
}

// BenchmarkDecodeSend is the SendMessage params of make perf, read by the
// fast path and by encoding/json.
func BenchmarkDecodeSend(b *testing.B) {
	raw := []byte(typicalParams[0])
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, e := Codec.DecodeParams(wire.OpSend, raw); e != nil {
				b.Fatal(e)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in v10SendIn
			if e := v10Unmarshal(raw, &in); e != nil {
				b.Fatal(e)
			}
			if e := decodeSendFrom(&in, &wire.Request{Op: wire.OpSend}); e != nil {
				b.Fatal(e)
			}
		}
	})
}

// Every other operation notes the members its v1.0 request message does
// not define too: a proto field name (page_size), a v0.3 member (metadata
// on GetTask), an authentication's v0.3 schemes; one of defined members
// only notes none.
func TestDecodeNotesIgnoredParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op           wire.Op
		clean, dirty string
		want         []string
	}{
		{wire.OpGetTask, `{"id":"t","historyLength":2,"tenant":"a"}`, `{"id":"t","history_length":2,"metadata":{}}`, []string{"history_length", "metadata"}},
		{wire.OpCancelTask, `{"id":"t","metadata":{"k":1}}`, `{"id":"t","reason":"stop"}`, []string{"reason"}},
		{wire.OpSubscribe, `{"id":"t"}`, `{"id":"t","metadata":{}}`, []string{"metadata"}},
		{wire.OpListTasks, `{"contextId":"c","pageSize":2,"pageToken":"","historyLength":1,"includeArtifacts":true,"status":"TASK_STATE_WORKING"}`,
			`{"contextId":"c","page_size":2,"PageToken":"","lastUpdatedAfter":"x"}`, []string{"page_size", "lastUpdatedAfter"}},
		{wire.OpSetPushConfig, `{"taskId":"t","url":"http://127.0.0.1:1/h","authentication":{"scheme":"Bearer","credentials":"x"}}`,
			`{"taskId":"t","url":"http://127.0.0.1:1/h","authentication":{"schemes":["Bearer"],"scheme":"Bearer"},"pushNotificationConfig":{}}`,
			[]string{"authentication.schemes", "pushNotificationConfig"}},
		{wire.OpGetPushConfig, `{"taskId":"t","id":"p"}`, `{"taskId":"t","id":"p","pushNotificationConfigId":"p"}`, []string{"pushNotificationConfigId"}},
		{wire.OpDeletePush, `{"taskId":"t","id":"p","tenant":""}`, `{"taskId":"t","id":"p","metadata":{}}`, []string{"metadata"}},
		{wire.OpListPushConfigs, `{"taskId":"t","pageSize":1,"pageToken":""}`, `{"taskId":"t","id":"t"}`, []string{"id"}},
		{wire.OpExtendedCard, `{"tenant":"a"}`, `{"metadata":{}}`, []string{"metadata"}},
	} {
		got, e := Codec.DecodeParams(tc.op, []byte(tc.clean))
		require.Nil(t, e, "%s %s", tc.op, tc.clean)
		assert.Empty(t, got.Ignored, "%s %s", tc.op, tc.clean)
		got, e = Codec.DecodeParams(tc.op, []byte(tc.dirty))
		require.Nil(t, e, "%s %s", tc.op, tc.dirty)
		assert.Equal(t, tc.want, got.Ignored, "%s %s", tc.op, tc.dirty)
	}
}
