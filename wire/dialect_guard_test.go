package wire_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// dialectConstants are the names of the dialect constants. Code outside
// this package that names one is usually a rule about that dialect, which
// belongs in its Descriptor.
var dialectConstants = map[string]bool{"V10": true, "V03": true, "V02": true, "V01": true}

// allowedDialectRefs lists the files outside wire/ (tests excluded) that
// may name dialect constants, how many times, and why the rule is not a
// descriptor's. Adding a dialect touches none of them unless the reason
// says so.
var allowedDialectRefs = map[string]struct {
	n   int
	why string
}{
	"testkit/a2aclient/client.go": {13, "testkit.Client is an independent client on purpose (its doc: a client that shares " +
		"the mock's codec agrees with its bugs); the dialects it speaks and their shapes are its own"},
	"cards/parse.go": {4, "cards without protocolVersion (v0.1, pre-0.2.5 v0.2) are told apart by their keys; " +
		"every later dialect names its version and is found through wire.DialectOfVersion"},
	"cards/render.go":                     {2, "the hybrid card is the v1.0 card plus the v0.3 fields, by definition"},
	"behaviors/lifecycle/version_skew.go": {4, "the behavior's serve parameter is the pair 0.3 / 1.0"},
	"internal/schemacheck/schemacheck.go": {1, "CheckV10Rules: what the v1.0 proto requires and its generated schema cannot express"},
	"testkit/a2aclient/wire.go":           {2, "testkit.Client's own v0.3 shapes (see testkit/a2aclient/client.go)"},
	"testkit/a2aclient/rest.go":           {1, "testkit.Client's HTTP+JSON binding speaks v1.0"},
	"examples/fieldincident/main.go":      {1, "an example's choice of dialect"},
}

// TestNoDialectRulesOutsideWire fails when code outside wire/ names a dialect
// constant more often than allowedDialectRefs says: ask wire.Describe(d)
// instead of comparing d with a dialect. It logs the references and the
// comparisons (==, !=, case, map keys) it finds.
func TestNoDialectRulesOutsideWire(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]int{}
	comparisons := 0
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			switch {
			case rel == ".":
				return nil
			case rel == "wire", rel == "interop", strings.HasPrefix(e.Name(), "."),
				e.Name() == "testdata", e.Name() == "node_modules", e.Name() == "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := wireImportName(f)
		if name == "" {
			return nil
		}
		isConst := func(x ast.Expr) bool {
			sel, ok := x.(*ast.SelectorExpr)
			if !ok {
				return false
			}
			id, ok := sel.X.(*ast.Ident)
			return ok && id.Name == name && dialectConstants[sel.Sel.Name]
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if isConst(n) {
					refs[rel]++
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isConst(n.X) || isConst(n.Y)) {
					comparisons++
				}
			case *ast.CaseClause:
				for _, x := range n.List {
					if isConst(x) {
						comparisons++
					}
				}
			case *ast.KeyValueExpr:
				if isConst(n.Key) {
					comparisons++
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(refs))
	total := 0
	for f, n := range refs {
		files = append(files, f)
		total += n
	}
	sort.Strings(files)
	t.Logf("outside wire/ (tests excluded): %d references to dialect constants in %d files, %d comparisons (==, !=, case, map key)",
		total, len(files), comparisons)
	for _, f := range files {
		allowed, ok := allowedDialectRefs[f]
		switch {
		case !ok:
			t.Errorf("%s names dialect constants %d times: put the rule in wire's Descriptor and ask wire.Describe(d) "+
				"(or add the file to allowedDialectRefs with the reason it is not a dialect rule)", f, refs[f])
		case refs[f] > allowed.n:
			t.Errorf("%s names dialect constants %d times, %d allowed (%s): put the new rule in wire's Descriptor",
				f, refs[f], allowed.n, allowed.why)
		case refs[f] < allowed.n:
			t.Logf("%s names dialect constants %d times, %d allowed: lower allowedDialectRefs", f, refs[f], allowed.n)
		}
	}
}

// wireImportName returns the name f refers to the wire package by, or "".
func wireImportName(f *ast.File) string {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "github.com/a2amock/a2amock/wire" {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return "wire"
	}
	return ""
}
