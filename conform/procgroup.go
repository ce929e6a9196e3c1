package conform

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
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
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits until process group pgid has no live member, at most
// for d.
func waitGroupGone(pgid int, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		if len(groupMembers(pgid)) == 0 {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
