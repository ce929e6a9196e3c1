// Package lifecycle holds the protocol behaviors that change what the
// agent decides and how its tasks live: the decision for a message, the
// task's timeline, unary results and errors, task ids and contexts,
// cancellation, listing, idempotency, version and tenant checks and
// credentials. They act through core.Exchange's OnDecide, OnPlan,
// OnResult, RejectWith and, for events a timeline cannot express,
// OnStreamEvent, so they work the same on every binding.
package lifecycle

import "github.com/a2amock/a2amock/behaviors/core"

// Specs returns the specs of the package's behaviors, for a registry.
func Specs() []core.Spec {
	return []core.Spec{
		authFlakySpec,
		contextIDDriftSpec,
		duplicateOnRetrySpec,
		duplicateTerminalSpec,
		failInsteadOfInputRequiredSpec,
		forgetTaskSpec,
		ignoreCancelSpec,
		inputRequiredWithoutWorkingSpec,
		listPaginationLoopSpec,
		mintTaskForUnknownIDSpec,
		neverTerminalSpec,
		newTaskIDOnContinuationSpec,
		skipWorkingSpec,
		statusForOtherTaskSpec,
		stuckSubmittedSpec,
		tenantSpec,
		transitionAfterTerminalSpec,
		versionSkewSpec,
		wrongErrorCodeSpec,
	}
}
