// Package clientrun runs the client command of `a2amock conform` once: in
// its own process group, with the contract's environment, its stdout read
// whole but kept bounded, its outcome line parsed, and the whole group (and
// every process carrying the run's marker) killed at the deadline plus the
// grace period, so that nothing the client started outlives the scenario.
package clientrun
