package main

import (
	"flag"
	"fmt"

	"github.com/a2amock/a2amock/server"
)

// limitFlags are serve's flags for the server's bounds. Each is applied only
// when given (on the command line or as A2AMOCK_<NAME>), so a scenario
// file's server.limits keep their values otherwise.
type limitFlags struct {
	maxBody, retentionBytes int64
	retention, maxRunning   int
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{}
	fs.Int64Var(&l.maxBody, "max-body-bytes", 4<<20, "largest request body in bytes")
	fs.IntVar(&l.retention, "task-retention", 10_000, "terminal tasks kept per agent, oldest forgotten first")
	fs.Int64Var(&l.retentionBytes, "task-retention-bytes", server.DefaultTaskRetentionBytes, "content bytes of the tasks kept per agent: oldest terminal tasks forgotten first, then the oldest running ones dropped (journaled)")
	fs.IntVar(&l.maxRunning, "max-running-tasks", server.DefaultMaxRunningTasks, "tasks per agent not in a terminal state; a new one past it drops the oldest running task (journaled as dropped)")
	return l
}

// apply sets the bounds that were given on cfg.
func (l *limitFlags) apply(cfg *server.Config, explicit map[string]bool) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"max-body-bytes", l.maxBody}, {"task-retention", int64(l.retention)}, {"task-retention-bytes", l.retentionBytes}, {"max-running-tasks", int64(l.maxRunning)}} {
		if explicit[f.name] && f.v <= 0 {
			return fmt.Errorf("--%s %d: use a positive number", f.name, f.v)
		}
	}
	if explicit["max-body-bytes"] {
		cfg.MaxBodyBytes = l.maxBody
	}
	if explicit["task-retention"] {
		cfg.TaskRetention = l.retention
	}
	if explicit["task-retention-bytes"] {
		cfg.TaskRetentionBytes = l.retentionBytes
	}
	if explicit["max-running-tasks"] {
		cfg.MaxRunningTasks = l.maxRunning
	}
	return nil
}
