package clientrun

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// groupMembers lists the live (not zombie) processes of process group pgid.
// It reads /proc where there is one; elsewhere it can only tell whether the
// group has a member, and says so with one fake pid.
func groupMembers(pgid int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		if syscall.Kill(-pgid, 0) == nil {
			return []int{pgid}
		}
		return nil
	}
	var out []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, live := procGroup(pid); live && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// procGroup returns the process group of pid and whether pid is a live
// (not zombie) process, from /proc/PID/stat.
func procGroup(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	return g, err == nil
}

// MarkerVar names the environment variable that marks every process of one
// client run: the runner finds by it what the client left running outside
// its process group (a child that called setsid), as long as the child
// kept its environment.
const MarkerVar = "A2AMOCK_CONFORM_RUN"

// NewMarker returns a fresh NAME=value marker for one client run.
func NewMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return MarkerVar + "=" + hex.EncodeToString(b[:])
}

// markedProcesses lists the live processes whose environment holds marker
// (NAME=value), reading /proc/PID/environ (readable for the runner's own
// user's processes only, which is what a client can start); nil without
// /proc or marker.
func markedProcesses(marker string) []int {
	if marker == "" {
		return nil
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(marker)
	self := os.Getpid()
	var out []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasEnv(env, want) {
			continue
		}
		if _, live := procGroup(pid); live {
			out = append(out, pid)
		}
	}
	return out
}

// hasEnv reports whether the NUL-separated environment block holds kv.
func hasEnv(block, kv []byte) bool {
	for len(block) > 0 {
		i := bytes.IndexByte(block, 0)
		if i < 0 {
			i = len(block)
		}
		if bytes.Equal(block[:i], kv) {
			return true
		}
		block = block[min(i+1, len(block)):]
	}
	return false
}
