package layout

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// overPackages lists the packages allowed over MaxPackageLines, each with
// the ceiling it may not pass. It is empty: every package is under the
// limit (issue 13). A package that must go over gets a line here, with
// why, and may then shrink but not grow.
var overPackages = map[string]int{}

// TestPackageAndFileSizes walks the module (not the separate interop module,
// nor vendored node or Python trees) and counts lines of hand-written
// non-test Go per package and per file.
func TestPackageAndFileSizes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	perPackage := map[string]int{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated(src) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		n := bytes.Count(src, []byte("\n"))
		if n > MaxFileLines {
			t.Errorf("%s has %d lines, over the %d a hand-written file may hold: split it at a seam", rel, n, MaxFileLines)
		}
		perPackage[filepath.ToSlash(filepath.Dir(rel))] += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(perPackage) < 20 {
		t.Fatalf("found only %d packages under %s: the walk is broken", len(perPackage), root)
	}
	var names []string
	for p := range perPackage {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		n := perPackage[p]
		limit, listed := overPackages[p]
		switch {
		case listed && n <= MaxPackageLines:
			t.Errorf("%s is down to %d lines, under %d: delete its line from overPackages", p, n, MaxPackageLines)
		case listed && n > limit:
			t.Errorf("%s has %d lines of non-test Go, over its ceiling of %d (and the limit of %d): it may shrink, not grow", p, n, limit, MaxPackageLines)
		case !listed && n > MaxPackageLines:
			t.Errorf("%s has %d lines of non-test Go, over the %d a package may hold: move a part with one job into its own package", p, n, MaxPackageLines)
		}
	}
	for p := range overPackages {
		if _, ok := perPackage[p]; !ok {
			t.Errorf("overPackages names %s, which holds no Go: delete its line", p)
		}
	}
}

// generated reports whether src carries the standard "Code generated ...
// DO NOT EDIT." line before its package clause.
func generated(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(line, " DO NOT EDIT.") {
			return true
		}
	}
	return false
}
