package conform

import "github.com/a2amock/a2amock/conform/internal/report"

// The report of a run lives in package report; these names keep conform's
// API as it was.
const (
	ReportSchema  = report.ReportSchema
	ReportVersion = report.ReportVersion
)

type (
	// Report is the result of a conform run, as the JSON report holds it.
	Report = report.Report
	// Summary counts the run's results.
	Summary = report.Summary
	// ScenarioResult is one scenario's run and verdicts.
	ScenarioResult = report.ScenarioResult
	// AgentRef names a hosted agent and its URL in the run.
	AgentRef = report.AgentRef
	// CheckResult is one check's verdict with its evidence.
	CheckResult = report.CheckResult
	// BaselineResult compares a run with its baseline.
	BaselineResult = report.BaselineResult
	// BaselineEntry is one scenario and check.
	BaselineEntry = report.BaselineEntry
)
