package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveFlagNames lists serve's flags as its -h output prints them.
func serveFlagNames(t *testing.T) map[string]bool {
	t.Helper()
	var out, errb bytes.Buffer
	require.Equal(t, 0, serve(context.Background(), []string{"-h"}, &out, &errb, nil))
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		names[m[1]] = true
	}
	require.Contains(t, names, "control-token", out.String())
	return names
}

// envFlag is the serve flag an A2AMOCK_<FLAG> variable sets.
func envFlag(v string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(v, "A2AMOCK_")), "_", "-")
}

// TestGitHubActionsExample loads the shipped workflow and checks the parts
// a copy-paste user depends on: the service container configured by
// environment variables serve really reads, a healthcheck the shell-less
// image can run, a token the job and the container agree on, and the
// journal read at the end.
func TestGitHubActionsExample(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../examples/github-actions/a2a-client.yml")
	require.NoError(t, err)
	var wf struct {
		Name string         `yaml:"name"`
		On   any            `yaml:"on"`
		Jobs map[string]job `yaml:"jobs"`
	}
	require.NoError(t, yaml.UnmarshalWithOptions(raw, &wf, yaml.Strict()))
	require.NotNil(t, wf.On)
	flags := serveFlagNames(t)
	checkEnv := func(where string, env map[string]string) {
		for k := range env {
			if strings.HasPrefix(k, "A2AMOCK_") {
				assert.True(t, flags[envFlag(k)], "%s: %s names no serve flag", where, k)
			}
		}
	}

	img, ok := wf.Jobs["image"]
	require.True(t, ok, "a job builds the image the service pulls")
	assert.Contains(t, img.Outputs, "ref")

	svcJob, ok := wf.Jobs["against-a2amock"]
	require.True(t, ok)
	assert.Contains(t, svcJob.Needs, "image")
	svc, ok := svcJob.Services["a2amock"]
	require.True(t, ok, "a2amock runs as a service container")
	assert.Equal(t, "${{ needs.image.outputs.ref }}", svc.Image)
	assert.Contains(t, svc.Ports, "8080:8080")
	checkEnv("services.a2amock.env", svc.Env)
	require.NotEmpty(t, svc.Env["A2AMOCK_CONTROL_TOKEN"])
	assert.Equal(t, svc.Env["A2AMOCK_CONTROL_TOKEN"], svcJob.Env["A2AMOCK_CONTROL_TOKEN"], "the job's curl presents the token the service was given")
	assert.Contains(t, svc.Options, "--health-interval")
	assert.NotContains(t, svc.Options, "--health-cmd", "Docker runs --health-cmd with /bin/sh, which the image does not have")
	assert.Contains(t, svcJob.run(), "/_a2amock/journal")
	assert.Contains(t, svcJob.run(), "job.services.a2amock.id")

	scJob, ok := wf.Jobs["against-a2amock-scenario"]
	require.True(t, ok, "scenario files need a step-started container")
	assert.Empty(t, scJob.Services)
	run := scJob.run()
	assert.Less(t, strings.Index(run, "actions/checkout"), strings.Index(run, "docker run"), "the scenario file exists only after checkout")
	assert.Contains(t, run, "-e A2AMOCK_SCENARIO=/scenarios/agent.yaml")
	assert.Contains(t, run, `-v "$PWD/testdata/a2a:/scenarios:ro"`)
	assert.Contains(t, run, "/_a2amock/journal")
	assert.NotContains(t, run, "--health-cmd")
	checkEnv("against-a2amock-scenario.env", scJob.Env)
	for _, m := range regexp.MustCompile(`-e (A2AMOCK_[A-Z_]+)`).FindAllStringSubmatch(run, -1) {
		assert.True(t, flags[envFlag(m[1])], "docker run -e %s names no serve flag", m[1])
	}
}

// TestCIDocNamesRealVariables keeps docs/ci.md's A2AMOCK_ variables in step
// with serve's flags.
func TestCIDocNamesRealVariables(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/ci.md")
	require.NoError(t, err)
	flags := serveFlagNames(t)
	vars := regexp.MustCompile(`A2AMOCK_[A-Z_]*[A-Z]`).FindAllString(string(doc), -1)
	require.NotEmpty(t, vars)
	for _, v := range vars {
		if v == "A2AMOCK_FLAG" {
			continue // the pattern's own placeholder, A2AMOCK_<FLAG>
		}
		if v == "A2AMOCK_URL" || v == "A2AMOCK_BIN" {
			continue // read by the Python and JS clients and testkit.Connect, not by serve
		}
		assert.True(t, flags[envFlag(v)], "docs/ci.md: %s names no serve flag", v)
	}
}

type job struct {
	Needs    stringOrList       `yaml:"needs"`
	RunsOn   string             `yaml:"runs-on"`
	Outputs  map[string]string  `yaml:"outputs"`
	Services map[string]service `yaml:"services"`
	Env      map[string]string  `yaml:"env"`
	Steps    []step             `yaml:"steps"`
	Perms    map[string]string  `yaml:"permissions"`
}

// run is the job's steps as text, in order: the actions used and the
// commands run.
func (j job) run() string {
	var b strings.Builder
	for _, s := range j.Steps {
		b.WriteString(s.Uses + "\n" + s.Run + "\n")
	}
	return b.String()
}

type service struct {
	Image       string            `yaml:"image"`
	Credentials map[string]string `yaml:"credentials"`
	Ports       []string          `yaml:"ports"`
	Env         map[string]string `yaml:"env"`
	Options     string            `yaml:"options"`
}

type step struct {
	Name string            `yaml:"name"`
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

// stringOrList is a key GitHub accepts as one string or a list of them.
type stringOrList []string

// UnmarshalYAML reads either form.
func (l *stringOrList) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*l = stringOrList{one}
		return nil
	}
	var many []string
	if err := unmarshal(&many); err != nil {
		return err
	}
	*l = many
	return nil
}
