package perf_test

import (
	"errors"
	"flag"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/architecture.md's import tables from importrules_test.go")

// The markers around the generated tables in docs/architecture.md.
const (
	importRulesBegin = "<!-- import rules: generated from perf/importrules_test.go by `go test ./perf/ -run TestImportRulesDoc -update`; edit the rules there -->\n"
	importRulesEnd   = "<!-- end of import rules -->\n"
)

// goList runs go list args in the module's root and returns its output, one line a package;
// a failure of go list fails the test with go's own message.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	root, err := perf.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, exitErr.Stderr)
		}
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") // not TrimSpace: a line may end in empty fields
}

// ruleOf is the first of importRules that matches pkg (module-relative).
func ruleOf(pkg string) (importRule, bool) {
	for _, r := range importRules {
		if match(r.pkg, pkg) {
			return r, true
		}
	}
	return importRule{}, false
}

// Every package of the module, built with or without the perf and kubenode tags, imports
// only the module's packages its rule in importRules allows; every package has a rule and
// every rule covers a package.
func TestImportRules(t *testing.T) {
	type pkgImports struct{ code, tests map[string]bool }
	pkgs := map[string]pkgImports{}
	for _, tags := range []string{"", "perf,kubenode"} {
		for _, line := range goList(t, "-tags", tags, "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				t.Fatalf("go list: unexpected line %q", line)
			}
			if f[0] == perf.ModulePath {
				t.Fatalf("the module's root folder has a package, which no rule covers")
			}
			p, ok := pkgs[rel(f[0])]
			if !ok {
				p = pkgImports{map[string]bool{}, map[string]bool{}}
				pkgs[rel(f[0])] = p
			}
			for _, imp := range strings.Fields(f[1]) {
				p.code[imp] = true
			}
			for _, imp := range strings.Fields(f[2]) {
				p.tests[imp] = true
			}
		}
	}
	used := map[string]bool{}
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		r, ok := ruleOf(pkg)
		if !ok {
			t.Errorf("package %s has no import rule: add one to importRules in perf/importrules_test.go, then go test ./perf/ -run TestImportRulesDoc -update", pkg)
			continue
		}
		used[r.pkg] = true
		check := func(imports map[string]bool, files string) {
			for _, imp := range slices.Sorted(maps.Keys(imports)) {
				own, ok := strings.CutPrefix(imp, perf.ModulePath+"/")
				if !ok || own == pkg {
					continue // not the module's, or an external test of pkg itself
				}
				if !slices.ContainsFunc(r.may, func(pat string) bool { return match(pat, own) }) {
					t.Errorf("%s (%s) imports %s, which its rule %q in importRules (perf/importrules_test.go) does not allow; it may import %s", pkg, files, own, r.pkg, codeList(r.may))
				}
			}
		}
		check(pkgs[pkg].code, "non-test files")
		if r.tests {
			check(pkgs[pkg].tests, "test files")
		}
	}
	for _, r := range importRules {
		if !used[r.pkg] {
			t.Errorf("import rule %q covers no package: remove it or fix its pattern", r.pkg)
		}
	}
	if len(pkgs) < 30 {
		t.Errorf("go list found %d packages; the module has more", len(pkgs))
	}
}

// docs/architecture.md shows importRulesMarkdown between its markers, line for line.
func TestImportRulesDoc(t *testing.T) {
	root, err := perf.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "docs", "architecture.md")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok := strings.Cut(doc, importRulesBegin)
	if !ok {
		t.Fatalf("docs/architecture.md has no line %q", strings.TrimSpace(importRulesBegin))
	}
	got, after, ok := strings.Cut(rest, importRulesEnd)
	if !ok {
		t.Fatalf("docs/architecture.md has no line %q after the opening marker", strings.TrimSpace(importRulesEnd))
	}
	want := importRulesMarkdown()
	if got == want {
		return
	}
	if *updateDoc {
		if err := os.WriteFile(file, []byte(before+importRulesBegin+want+importRulesEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the import tables of %s", file)
		return
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(gotLines) && i < len(wantLines) && gotLines[i] == wantLines[i] {
		i++
	}
	line := strings.Count(before+importRulesBegin, "\n") + i + 1
	at := func(lines []string) string {
		if i < len(lines) {
			return strconv.Quote(lines[i])
		}
		return "(the end of the tables)"
	}
	t.Errorf("docs/architecture.md's import tables differ from perf/importrules_test.go's rules, first at its line %d:\n"+
		"  the doc has:    %s\n  the rules give: %s\n"+
		"regenerate them with: go test ./perf/ -run TestImportRulesDoc -update", line, at(gotLines), at(wantLines))
}

// depPkg is one package a binary links, as go list -deps shows it.
type depPkg struct {
	dir     string
	files   []string // its non-test Go files
	imports []string
}

// Every main package of the module has a binary rule, and links none of the packages its
// rule forbids; a failure names the binary, the package, one shortest import chain that
// brings it in, and every linked package that imports it directly, with the files that do.
func TestImportRulesOfBinaries(t *testing.T) {
	var bins []string
	for _, line := range goList(t, "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "./...") {
		if line != "" {
			bins = append(bins, line)
		}
	}
	deps := map[string]depPkg{}
	for _, line := range goList(t, append([]string{"-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}\t{{join .Imports \" \"}}"}, bins...)...) {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("go list -deps: unexpected line %q", line)
		}
		deps[f[0]] = depPkg{dir: f[1], files: strings.Fields(f[2]), imports: strings.Fields(f[3])}
	}
	used := map[string]bool{}
	seen := map[int]bool{}
	for _, bin := range bins {
		i := slices.IndexFunc(binaryRules, func(r binaryRule) bool { return match(r.bin, rel(bin)) })
		if i < 0 {
			t.Errorf("binary %s has no rule: add one to binaryRules in perf/importrules_test.go, then go test ./perf/ -run TestImportRulesDoc -update", rel(bin))
			continue
		}
		r := binaryRules[i]
		used[r.bin] = true
		t.Run(rel(bin), func(t *testing.T) {
			parent := shortestParents(bin, deps)
			if len(parent) < 2 {
				t.Fatalf("go list -deps %s lists no package it imports", bin)
			}
			for _, bad := range r.mayNotLink {
				if _, linked := parent[bad]; !linked {
					continue
				}
				var chain []string
				for p := bad; p != ""; p = parent[p] {
					chain = append(chain, rel(p))
				}
				slices.Reverse(chain)
				var by, byPkgs []string
				for _, p := range slices.Sorted(maps.Keys(parent)) {
					if slices.Contains(deps[p].imports, bad) {
						by = append(by, "    "+rel(p)+" ("+strings.Join(importingFiles(t, deps[p], bad), ", ")+")")
						byPkgs = append(byPkgs, p)
					}
				}
				if k := slices.IndexFunc(knownLinks, func(k struct{ pkg, via, why string }) bool {
					return k.pkg == bad && len(byPkgs) == 1 && byPkgs[0] == perf.ModulePath+"/"+k.via
				}); k >= 0 {
					seen[k] = true
					t.Logf("binary %s links %s through %s, a known link still to remove (knownLinks): %s", rel(bin), rel(bad), knownLinks[k].via, knownLinks[k].why)
					continue
				}
				t.Errorf("binary %s links %s, which its rule %q in binaryRules (perf/importrules_test.go) forbids\n  chain: %s\n  imported directly by:\n%s",
					rel(bin), rel(bad), r.bin, strings.Join(chain, " -> "), strings.Join(by, "\n"))
			}
		})
	}
	for k, l := range knownLinks {
		if !seen[k] {
			t.Errorf("knownLinks: %s through %s no longer happens in any binary: remove the entry", l.pkg, l.via)
		}
	}
	for _, r := range binaryRules {
		if !used[r.bin] {
			t.Errorf("binary rule %q covers no main package: remove it or fix its pattern", r.bin)
		}
	}
	if len(bins) < 10 {
		t.Errorf("go list found %d main packages; the module has more", len(bins))
	}
}

// shortestParents walks deps breadth-first from root and returns, for every package root
// links, the package through which a shortest import chain reaches it ("" for root).
func shortestParents(root string, deps map[string]depPkg) map[string]string {
	parent := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range deps[p].imports {
			if _, seen := parent[imp]; !seen {
				parent[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return parent
}

// importingFiles names the files of p that import path.
func importingFiles(t *testing.T, p depPkg, path string) []string {
	t.Helper()
	var names []string
	for _, name := range p.files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("read the imports of %s: %v", name, err)
		}
		for _, s := range f.Imports {
			if v, _ := strconv.Unquote(s.Path.Value); v == path {
				names = append(names, name)
			}
		}
	}
	return names
}
