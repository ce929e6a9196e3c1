package replay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSplice(t *testing.T) {
	t.Parallel()
	sp, err := ParseSplice(" 3:hang ")
	require.NoError(t, err)
	assert.Equal(t, &Splice{At: 3, Fault: FaultHang}, sp)
	for _, bad := range []string{"", "3", "x:drop", "-1:drop", "2:explode", "2:"} {
		_, err := ParseSplice(bad)
		assert.Error(t, err, bad)
	}
}
