package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

type recorder struct{ out strings.Builder }

func (r *recorder) Errorf(format string, args ...any) { fmt.Fprintf(&r.out, format, args...) }

// TestNoOrphansFailsOnAWorkingTask: a task the client started and left
// working is an orphan; once the journal shows it completed, it is not.
func TestNoOrphansFailsOnAWorkingTask(t *testing.T) {
	t.Parallel()
	journal := []server.Entry{
		{Seq: 1, Agent: "a", Kind: server.EntryRequest, Op: wire.OpSend, Method: "SendMessage", Request: 1},
		{Seq: 2, Agent: "a", Kind: server.EntryResponse, Op: wire.OpSend, Method: "SendMessage", Request: 1, TaskID: "t1", State: wire.StateWorking},
		{Seq: 3, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateWorking},
	}
	r := &recorder{}
	if AssertNoOrphans(r, journal) {
		t.Fatal("a task left working passed")
	}
	if !strings.Contains(r.out.String(), "t1") {
		t.Errorf("the failure does not name the task: %s", r.out.String())
	}
	journal = append(journal, server.Entry{Seq: 4, Agent: "a", Kind: server.EntryEvent, TaskID: "t1", State: wire.StateCompleted})
	if !AssertNoOrphans(&recorder{}, journal) {
		t.Error("a completed task failed")
	}
}
