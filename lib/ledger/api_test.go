package ledger_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestNoStoreNamesInAPI: lib/ledger's exported API names none of its
// store's identifiers. No exported alias, constant or variable is a store
// name, and no exported function, method, struct field or type mentions
// a store type, so a caller needs only lib/ledger, lib/ledger/spec and
// the packages those name (issue 31: "no re-exported store names").
func TestNoStoreNamesInAPI(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	parsed := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		storeName := ""
		for _, imp := range f.Imports {
			if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/internal/store") {
				storeName = "store"
				if imp.Name != nil {
					storeName = imp.Name.Name
				}
			}
		}
		if storeName == "" {
			continue
		}
		mentions := func(n ast.Node) bool {
			hit := false
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == storeName {
						hit = true
					}
				}
				return !hit
			})
			return hit
		}
		report := func(n ast.Node, what string) {
			found = append(found, fset.Position(n.Pos()).String()+": "+what)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				if mentions(d.Type) {
					report(d, "func "+d.Name.Name+" takes or returns a store type")
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if !sp.Name.IsExported() {
							continue
						}
						if sp.Assign.IsValid() && mentions(sp.Type) {
							report(sp, "type "+sp.Name.Name+" is an alias of a store type")
							continue
						}
						if st, ok := sp.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								exported := len(fl.Names) == 0
								for _, n := range fl.Names {
									exported = exported || n.IsExported()
								}
								if exported && mentions(fl.Type) {
									report(fl, "type "+sp.Name.Name+" has an exported field of a store type")
								}
							}
						} else if mentions(sp.Type) {
							report(sp, "type "+sp.Name.Name+" is made of a store type")
						}
					case *ast.ValueSpec:
						for i, n := range sp.Names {
							if !n.IsExported() {
								continue
							}
							if sp.Type != nil && mentions(sp.Type) || i < len(sp.Values) && mentions(sp.Values[i]) {
								report(n, n.Name+" is a store name")
							}
						}
					}
				}
			}
		}
	}
	if parsed == 0 {
		t.Fatal("no file of lib/ledger parsed: the check is stale")
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
