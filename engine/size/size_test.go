package size

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/wire"
)

func TestSizesCountContent(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(0), Value(nil))
	assert.Equal(t, int64(3), Value("abc"))
	assert.Equal(t, int64(1+3+1+8), Value(map[string]any{"k": "abc", "n": nil, "": 1.5}), "keys, strings, 8 per other scalar")
	assert.Equal(t, int64(2+8), Value([]any{"ab", true}))
	assert.Equal(t, int64(5+4+3), Parts([]wire.Part{{Text: "hello"}, {Raw: []byte("1234"), MediaType: "a/b"}}))
	task := &wire.Task{ID: "t1", ContextID: "c1",
		History:   []wire.Message{{MessageID: "m1", Parts: []wire.Part{{Text: "hi"}}}},
		Artifacts: []wire.Artifact{{ArtifactID: "a1", Parts: []wire.Part{{Text: "out"}}}}}
	assert.Equal(t, int64(2+2+(2+2)+(2+3)), Task(task))
}
