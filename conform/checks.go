package conform

import "github.com/a2amock/a2amock/conform/internal/judge"

// The checks and what they judge live in package judge; these names keep
// conform's API as it was.
type (
	// Check is one named, documented judgement of a scenario run.
	Check = judge.Check
	// Evidence is what a check looked at: the journal entries and wire
	// records its verdict rests on.
	Evidence = judge.Evidence
)

// BaseChecks judge every scenario, whatever its file lists.
var BaseChecks = judge.BaseChecks

// Checks returns every check, in the order reports list them.
func Checks() []*Check { return judge.Checks() }

// CheckByID returns the check with the given id.
func CheckByID(id string) (*Check, bool) { return judge.CheckByID(id) }

// CheckIDs lists every check id.
func CheckIDs() []string { return judge.CheckIDs() }
