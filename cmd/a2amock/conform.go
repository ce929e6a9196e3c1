package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/a2amock/a2amock/conform"
	"github.com/a2amock/a2amock/ui"
)

// conformCmd runs a2amock conform: flags only; package conform does the
// work. Exit 0 when every failure is expected and no baseline entry is
// stale, 1 otherwise, 2 for bad usage or a bad suite or baseline file.
func conformCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	client := fs.String("client", "", "the client command, run once per scenario (split like a shell; {agent_url}, {prompt}, {input} substituted)")
	suiteName := fs.String("suite", conform.DefaultSuiteName, "the suite: default (built in), a file of scenario documents separated by ---, or a directory of them")
	var ids stringList
	fs.Var(&ids, "scenario", "run only this scenario id (repeatable)")
	var baselineFiles stringList
	fs.Var(&baselineFiles, "expected-failures", "YAML file of expected failures: scenario id → check id → reason (repeatable: the files are layers, each failure listed in one, e.g. what fails on every binding and what fails over gRPC only)")
	update := fs.Bool("update-baseline", false, "write the run's failures to the (last) --expected-failures file, but those the files before it list, keeping known reasons, and exit 0")
	grace := fs.Duration("timeout", conform.DefaultGrace, "grace period: the client is killed this long after the scenario's deadline")
	startup := fs.Duration("startup", conform.DefaultStartup, "start-up allowance: the deadline counts from the client's first request to the agent, or from this long after its start when it has made none")
	parallel := fs.Int("parallel", 0, "scenarios run at once (default: the number of CPUs)")
	seed := seedFlag(fs, "replace every scenario's seed (ids, cards, random choices)")
	reportJSON := fs.String("report-json", "", "write the JSON report (schema in docs/conformance.md) to this file")
	junit := fs.String("junit", "", "write a JUnit XML report to this file")
	markdown := fs.String("markdown", "", "write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
	htmlFile := fs.String("html", "", "write the run as one self-contained HTML page (the timeline of each scenario with its failing checks; as a2amock report does)")
	list := fs.Bool("list", false, "list the suite's scenarios and the checks, then exit")
	quiet := fs.Bool("quiet", false, "no progress lines")
	grpcFlag := fs.Bool("grpc", false, "also serve the gRPC binding in every scenario: every v1.0 card declares GRPC at the shared host:port beside its HTTP interfaces, with the agent's name as its tenant, and so does the v0.3 card of the agent v0.3's tenantless calls reach (A2A_AGENT_URL is as without it)")
	pos, code, ok := parseFlags(fs, "conform --client 'CMD' [flags]", args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "a2amock conform: unexpected arguments %q (quote the client command: --client 'python client.py')\n", pos)
		return 2
	}
	// Zero in conform.Options means the default: say so rather than run
	// with 3s when --timeout 0 asked for none.
	for _, d := range []struct {
		flag, what string
		v          time.Duration
	}{{"timeout", "the grace period after the deadline", *grace}, {"startup", "the start-up allowance", *startup}} {
		if d.v <= 0 {
			fmt.Fprintf(stderr, "a2amock conform: --%s %s: %s must be positive\n", d.flag, d.v, d.what)
			return 2
		}
	}
	if *parallel < 0 {
		fmt.Fprintf(stderr, "a2amock conform: --parallel %d: give the number of scenarios run at once (0: the number of CPUs)\n", *parallel)
		return 2
	}
	suite, err := conform.LoadSuite(*suiteName)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock conform: bad suite:\n%v\n", err)
		return 2
	}
	if *list {
		conform.WriteList(stdout, suite)
		return 0
	}
	if *client == "" {
		fmt.Fprintln(stderr, "a2amock conform: --client is required (e.g. --client 'python client.py'); see docs/conformance.md for the contract")
		return 2
	}
	if err := conform.CheckClient(*client); err != nil {
		fmt.Fprintf(stderr, "a2amock conform: --client: %v\n", err)
		return 2
	}
	if *update && len(baselineFiles) == 0 {
		fmt.Fprintln(stderr, "a2amock conform: --update-baseline needs --expected-failures FILE")
		return 2
	}
	// An HTML report draws every exchange of each scenario, not only the
	// entries a check cites: the run keeps the journals for it.
	opts := conform.Options{Client: *client, Suite: suite, Scenarios: ids, Grace: *grace, Startup: *startup, Parallel: *parallel, KeepJournal: *htmlFile != "", GRPC: *grpcFlag}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			opts.Seed = seed
		}
	})
	var old *conform.Baseline
	if len(baselineFiles) > 0 {
		load := baselineFiles
		if last := load[len(load)-1]; *update && os.IsNotExist(statErr(last)) {
			load = load[:len(load)-1] // --update-baseline makes it
		}
		if len(load) > 0 {
			old, err = conform.LoadBaselines(load, suite)
			if err != nil {
				fmt.Fprintf(stderr, "a2amock conform: bad baseline:\n%v\n", err)
				return 2
			}
		}
		if !*update {
			opts.Baseline = old
		}
	}
	if !*quiet {
		opts.Progress = stdout
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := conform.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock conform: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout)
	conform.WriteSummary(stdout, rep)
	status := 0
	write := func(path string, render func(io.Writer) error) {
		if path == "" {
			return
		}
		var buf bytes.Buffer
		if err := render(&buf); err == nil {
			err = os.WriteFile(path, buf.Bytes(), 0o644)
			if err == nil {
				return
			}
			fmt.Fprintf(stderr, "a2amock conform: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "a2amock conform: %s: %v\n", path, err)
		}
		status = 2
	}
	write(*reportJSON, func(w io.Writer) error {
		b, err := rep.JSON()
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
	write(*junit, func(w io.Writer) error { return conform.WriteJUnit(w, rep) })
	write(*markdown, func(w io.Writer) error { return conform.WriteMarkdown(w, rep) })
	write(*htmlFile, func(w io.Writer) error {
		b, err := rep.JSON()
		if err == nil {
			err = ui.WriteReport(w, b, "")
		}
		return err
	})
	if ctx.Err() != nil {
		// Stopped by a signal: the scenarios it cut short are not judged,
		// so the run says nothing a baseline could keep.
		fmt.Fprintln(stderr, "a2amock conform: interrupted: the scenarios it cut short or never started are not judged")
		if *update {
			fmt.Fprintf(stderr, "a2amock conform: %s left as it was\n", baselineFiles[len(baselineFiles)-1])
		}
		return 1
	}
	if *update {
		path := baselineFiles[len(baselineFiles)-1]
		if err := conform.WriteBaseline(path, rep, old); err != nil {
			fmt.Fprintf(stderr, "a2amock conform: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "wrote %s (%d failures", path, rep.Summary.ChecksFailed)
		if others := len(baselineFiles) - 1; others > 0 {
			fmt.Fprintf(stdout, "; those the %d file(s) before it list are left to them", others)
		}
		fmt.Fprintln(stdout, ")")
		return status
	}
	if status == 0 && !rep.Summary.OK {
		status = 1
	}
	return status
}

func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}
