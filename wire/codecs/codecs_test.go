package codecs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// TestEveryDescribedDialectHasItsCodec: each dialect wire describes has a
// codec that says it speaks that dialect and knows its methods; an unknown
// dialect has none.
func TestEveryDescribedDialectHasItsCodec(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03, wire.V02, wire.V01} {
		c := codecs.For(d)
		require.NotNil(t, c, d)
		assert.Equal(t, d, c.Dialect())
		assert.NotEmpty(t, c.Methods(), d)
	}
	assert.Nil(t, codecs.For("9.9"))
	status, body := codecs.EncodeRESTError(wire.Errorf(wire.CodeTaskNotFound, "no task t"))
	assert.Equal(t, 404, status)
	assert.Contains(t, string(body), `"NOT_FOUND"`)
}
