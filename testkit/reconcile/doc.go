// Package reconcile turns the rule "trust the Agent Card for routing, trust
// only observed task states for lifecycle" into a library a client can use in
// production as well as in tests: it imports nothing but the standard library
// and a2amock's model packages.
//
// The pieces, in the order a client meets them:
//
//   - Declare normalises a card of any dialect into a Declared view; the
//     v1.0 card has no stateTransitionHistory, so Policy says what to assume.
//   - Expect (phase 1) narrows the transitions a client may expect from the
//     declared view and a skill; Expectation.Check (phase 2) validates them
//     against what was observed and either keeps them, downgrades them (see
//     Verdict) or aborts with a *DivergenceError.
//   - A Ledger records every state a client observes, from any channel,
//     keyed by task id or by a gateway's correlation id, and gives a task
//     that broke its contract the terminal outcome OutcomeDiverged, distinct
//     from OutcomeFailed.
//   - Driver is a small reconciling client loop over an Agent interface: it
//     sends, waits with bounds measured on an injected clock, probes with
//     GetTask, answers input-required, and cancels or re-issues on divergence.
//     It never waits without a deadline.
package reconcile
