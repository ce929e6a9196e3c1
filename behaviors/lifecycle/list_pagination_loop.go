package lifecycle

import (
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var listPaginationLoopSpec = core.Spec{
	Name: "list-pagination-loop",
	Doc: `Reproduces listings that page wrongly (ListTasks; with
lists=push-configs, ListTaskPushNotificationConfigs too). ignore=token:
the agent ignores pageToken and answers every page request with the first
page and the same nextPageToken, so a client that follows tokens until
none is left loops for ever. ignore=size: the agent ignores pageSize and
answers with its default page size. Both can be given (token|size). The
journal keeps the token the client sent, so testkit.AssertNoPageTokenLoop
can tell a client that detected the loop from one that did not. The
v1.0 dialect (v0.x has no ListTasks and pages no push configs), every
binding; push configs page only when the client sends a pageSize. Tests that a
client stops when a nextPageToken repeats (or bounds the pages it fetches)
and does not assume the page size it asked for. Evidence: ggcode#258 (a
listing that never ended), A2A#1420 (pageToken semantics).`,
	New: func() core.Behavior { return &ListPaginationLoop{Ignore: []string{"token"}, Lists: []string{"tasks"}} },
}

// ListPaginationLoop makes a listing ignore its paging parameters.
type ListPaginationLoop struct {
	Ignore []string `param:"ignore" doc:"what the agent ignores: token, size"`
	Lists  []string `param:"lists" doc:"the listings that page wrongly: tasks, push-configs"`
}

// listOps maps the lists parameter's values to the operations.
var listOps = map[string]wire.Op{"tasks": wire.OpListTasks, "push-configs": wire.OpListPushConfigs}

// Validate implements Validator.
func (b *ListPaginationLoop) Validate() error {
	for _, v := range b.Ignore {
		if v != "token" && v != "size" {
			return fmt.Errorf("ignore takes token and size, not %q", v)
		}
	}
	for _, v := range b.Lists {
		if _, ok := listOps[v]; !ok {
			return fmt.Errorf("lists takes tasks and push-configs, not %q", v)
		}
	}
	return nil
}

// Apply implements Behavior. It changes the decoded request the agent
// serves, after the journal recorded what the client sent.
func (b *ListPaginationLoop) Apply(x *core.Exchange) {
	if x.Request == nil || !slices.ContainsFunc(b.Lists, func(l string) bool { return listOps[l] == x.Op }) {
		return
	}
	if slices.Contains(b.Ignore, "token") {
		x.Request.List.PageToken = ""
	}
	if slices.Contains(b.Ignore, "size") {
		x.Request.List.PageSize = 0
	}
}
