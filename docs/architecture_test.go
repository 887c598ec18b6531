package docs_test

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path every package of the project starts with.
const module = "github.com/threeds-sandbox/threeds-sandbox"

// name is a package's path inside the module: "." for the module's root.
func name(importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// projectImports returns, per package of the module (its path inside the
// module, see name), the packages of the module it imports, as go list
// sees them.
func projectImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		var own []string
		for _, imp := range strings.Fields(imports) {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, name(imp))
			}
		}
		slices.Sort(own)
		got[name(pkg)] = own
	}
	return got
}

// TestArchitectureNamesEveryPackage: the architecture page gives every
// package of go list its one job, and names no package that is gone.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	page := string(read(t, "architecture.md"))
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9/-]+|\\.)` \\| .+ \\|$").FindAllStringSubmatch(page, -1) {
		named[m[1]] = true
	}
	actual := projectImports(t)
	for pkg := range actual {
		if !named[pkg] {
			t.Errorf("docs/architecture.md does not give package %s its job in the table of packages", pkg)
		}
	}
	for pkg := range named {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/architecture.md names package %s, which go list does not know", pkg)
		}
	}
}

// TestArchitectureImports: the page's list of imports is exactly what go
// list says each package imports of the project.
func TestArchitectureImports(t *testing.T) {
	page := string(read(t, "architecture.md"))
	m := regexp.MustCompile("(?s)```imports\n(.*?)```").FindStringSubmatch(page)
	if m == nil {
		t.Fatal("docs/architecture.md has no ```imports block")
	}
	drawn := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(m[1]), "\n") {
		pkg, imports, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("imports block: line %q is not \"package: imports\"", line)
		}
		list := strings.Fields(imports)
		slices.Sort(list)
		drawn[pkg] = list
	}
	actual := projectImports(t)
	for pkg, want := range actual {
		if got, ok := drawn[pkg]; !ok || !slices.Equal(got, want) {
			t.Errorf("imports of %s: the page says %v, go list says %v", pkg, got, want)
		}
	}
	for pkg := range drawn {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("the page lists the imports of %s, which go list does not know", pkg)
		}
	}
}

// TestArchitectureRules checks the rules the page states that go list can
// show: only the Redis wing speaks to Redis, the engine's packages know
// neither HTTP nor HTML, and the automation API's JSON needs only the
// standard library.
// belowEngine are the packages under emulator/ that the engine imports or
// that implement its ports: none may import the engine.
var belowEngine = []string{"emulator/message", "emulator/state", "emulator/state/statetest", "emulator/wire",
	"emulator/record", "emulator/journal", "emulator/memstore", "emulator/redisstore", "emulator/emv"}

func TestArchitectureRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkg := name(parts[0])
		imports, deps := strings.Fields(parts[1]), strings.Fields(parts[2])
		if slices.Contains(imports, "github.com/redis/rueidis") && pkg != "emulator/redisstore" {
			t.Errorf("%s imports rueidis: only emulator/redisstore may", pkg)
		}
		// The messages, the state ports and what works on them (the
		// decoder, the record codec, the journal, the wings) stand
		// below the engine that decides: none of them imports it.
		if slices.Contains(belowEngine, pkg) && slices.Contains(imports, module+"/emulator") {
			t.Errorf("%s imports the engine (emulator): it must stand below it", pkg)
		}
		// The automation API's JSON is the Go client's too: it brings
		// nothing of the server, nor any other module, into a client.
		if pkg == "web/adminapi" {
			for _, d := range deps {
				if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
					t.Errorf("web/adminapi depends on %s: it may use the standard library only", d)
				}
			}
		}
		engine := pkg == "emulator" || (strings.HasPrefix(pkg, "emulator/") && !slices.Contains([]string{"emulator/testkit", "emulator/state/statetest", "emulator/redisstore"}, pkg))
		if engine {
			for _, banned := range []string{"net/http", "html/template"} {
				if slices.Contains(deps, banned) {
					t.Errorf("%s depends on %s: the engine knows neither HTTP nor HTML", pkg, banned)
				}
			}
		}
	}
}
