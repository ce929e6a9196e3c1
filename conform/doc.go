// Package conform grades an A2A client, in any language, against a suite
// of misbehaving agents: for each scenario of a suite (DefaultSuite, or a
// suite file: LoadSuite) it hosts the scenario's agents on a fresh mock,
// runs the client once under the contract's environment (the agents' URLs,
// the prompt, the deadline; docs/conformance.md), and judges what the
// journal and the wire show the client did with the checks the scenario
// lists (Checks). Run returns the Report; WriteSummary, WriteMarkdown,
// WriteJUnit and Report.JSON render it; a baseline (LoadBaseline,
// WriteBaseline) lists the failures a client is known to have.
//
// The checks live in the internal package judge and the report's
// renderings in the internal package report; `a2amock conform` is the
// command over this package.
package conform
