package cardsig_test

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cardsig"
)

// TestJCSNumbersRFC8785AppendixB checks every finite number of RFC 8785
// Appendix B (IEEE 754 bit pattern → canonical text), and that the two
// non-finite ones are refused.
func TestJCSNumbersRFC8785AppendixB(t *testing.T) {
	t.Parallel()
	for _, v := range [][2]string{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	} {
		raw, err := hex.DecodeString(v[0])
		require.NoError(t, err)
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		got, err := cardsig.Number(f)
		require.NoError(t, err, v[0])
		assert.Equal(t, v[1], got, v[0])
	}
	for _, bad := range []string{"7fffffffffffffff", "7ff0000000000000"} {
		raw, _ := hex.DecodeString(bad)
		_, err := cardsig.Number(math.Float64frombits(binary.BigEndian.Uint64(raw)))
		assert.Error(t, err, bad)
	}
}

// TestJCSRFC8785Example is the example of RFC 8785 §3.2.2 (values) and the
// sorting example of §3.2.3.
func TestJCSRFC8785Example(t *testing.T) {
	t.Parallel()
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	got, err := cardsig.JCS([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`, string(got))

	sorting := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	got, err = cardsig.JCS([]byte(sorting))
	require.NoError(t, err)
	assert.Equal(t, "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}", string(got))

	for _, bad := range []string{`{"a":1,"a":2}`, `[1e400]`, `{"a":1} x`, "\"\xff\""} {
		_, err := cardsig.JCS([]byte(bad))
		assert.Error(t, err, bad)
	}
}
