package wire

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envelopeBody writes a JSON-RPC request as clients do and as they should
// not: members shuffled, left out, repeated, unknown or in another case;
// ids of every JSON type; null; odd white space; a byte cut or added.
func envelopeBody(r *rand.Rand) string {
	values := map[string][]string{
		"jsonrpc": {`"2.0"`, `"1.0"`, `2`, `null`, `"2\u002e0"`},
		"id":      {`1`, `"a"`, `-1.5e2`, `null`, `{}`, `[1]`, `true`, `"\u00e9"`},
		"method":  {`"SendMessage"`, `"message/send"`, `""`, `5`, `null`, `"Send\u004dessage"`},
		"params":  {`{"message":{"messageId":"m","parts":[{"text":"hi"}]}}`, `[]`, `null`, `"x"`, `{ }`, `{"a":[{"b":null}]}`},
	}
	keys := []string{"jsonrpc", "id", "method", "params"}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	var b strings.Builder
	b.WriteString("{")
	n := 0
	for _, k := range keys {
		if r.IntN(8) == 0 {
			continue
		}
		v := values[k][0]
		if r.IntN(3) == 0 {
			v = values[k][r.IntN(len(values[k]))]
		}
		name := k
		switch r.IntN(20) {
		case 0:
			name = strings.ToUpper(k)
		case 1:
			name = "x" + k
		}
		if n > 0 {
			b.WriteString([]string{",", " , ", ",\n"}[r.IntN(3)])
		}
		n++
		b.WriteString(`"` + name + `":` + v)
		if r.IntN(25) == 0 {
			b.WriteString(`,"` + name + `":` + values[k][r.IntN(len(values[k]))])
		}
	}
	b.WriteString("}")
	out := b.String()
	switch r.IntN(30) {
	case 0:
		out = out[:r.IntN(len(out))]
	case 1:
		out += "]"
	}
	return out
}

// TestEnvelopeScanReadsAsEncodingJSON reads 50,000 generated bodies both
// ways: wherever the fast path takes one it must read what encoding/json
// reads, and encoding/json must have taken it too.
func TestEnvelopeScanReadsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	taken := 0
	const n = 50_000
	for range n {
		body := envelopeBody(r)
		if sameEnvelopeRead(t, body) {
			taken++
		}
		if t.Failed() {
			return
		}
	}
	assert.Greater(t, taken, n/5, "bodies the fast path took")
	assert.True(t, sameEnvelopeRead(t, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{}}}`), "the fast path takes a plain request")
}

func sameEnvelopeRead(t *testing.T, body string) bool {
	t.Helper()
	var fast, slow rpcEnvelope
	ok := fast.scan([]byte(body))
	err := json.Unmarshal([]byte(body), &slow)
	if !ok {
		return false
	}
	require.NoError(t, err, "the fast path took what encoding/json refuses: %s", body)
	require.True(t, reflect.DeepEqual(slow, fast), "read differently: %s\nencoding/json: %+v\nfast path:     %+v", body, slow, fast)
	return true
}

// FuzzEnvelopeScan checks the fast path against encoding/json on the
// fuzzer's bodies.
func FuzzEnvelopeScan(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 40 {
		f.Add(envelopeBody(r))
	}
	f.Fuzz(func(t *testing.T, body string) { sameEnvelopeRead(t, body) })
}
