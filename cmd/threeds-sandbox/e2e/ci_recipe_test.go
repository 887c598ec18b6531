//go:build full

package e2e

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	Jobs map[string]struct {
		Services map[string]struct {
			Image   string            `yaml:"image"`
			Ports   []string          `yaml:"ports"`
			Env     map[string]string `yaml:"env"`
			Options string            `yaml:"options"`
		} `yaml:"services"`
		Env   map[string]string `yaml:"env"`
		Steps []workflowStep    `yaml:"steps"`
	} `yaml:"jobs"`
}

// workflowStep is a step of a job.
type workflowStep struct {
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

// TestCIServiceContainer checks the GitHub Actions workflow of
// docs/ci.md against what the release publishes and the image is: the
// service runs the image a release publishes (cmd/release), publishes the port the
// Dockerfile exposes, sets only THREEDS_* variables the program has, its
// health command is the image's HEALTHCHECK, and a step waits for
// /readyz on the published port before the tests. (TestImage runs that
// health command in the image; TestInstallWithGo runs the plain-binary
// recipe of the same page.)
func TestCIServiceContainer(t *testing.T) {
	t.Parallel()
	blocks := testkit.Fences(t, filepath.Join(repoRoot, "docs/ci.md"), "## GitHub Actions: the image as a service container")
	if len(blocks) == 0 || blocks[0].Lang != "yaml" {
		t.Fatalf("docs/ci.md shows no workflow: %q", blocks)
	}
	var w workflow
	if err := yaml.Unmarshal([]byte(blocks[0].Text), &w); err != nil {
		t.Fatalf("the workflow is not YAML: %v", err)
	}

	image := releaseImage(t)
	dockerfile, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	health := regexp.MustCompile(`(?m)^HEALTHCHECK .*CMD (\[.*\])$`).FindSubmatch(dockerfile)
	if health == nil {
		t.Fatal("the Dockerfile has no HEALTHCHECK CMD [...]")
	}
	var healthCmd []string
	if err := json.Unmarshal(health[1], &healthCmd); err != nil {
		t.Fatalf("HEALTHCHECK %s: %v", health[1], err)
	}
	twins := map[string]bool{}
	sandbox.FlagSet(&sandbox.Config{}, io.Discard).VisitAll(func(f *flag.Flag) { twins[sandbox.EnvName(f.Name)] = true })

	services := 0
	for name, job := range w.Jobs {
		for sname, s := range job.Services {
			services++
			repo, tag, _ := strings.Cut(s.Image, ":")
			if repo != image || tag == "" {
				t.Errorf("job %s, service %s: image %q, want %s:<tag>, the image a release publishes", name, sname, s.Image, image)
			}
			if !slices.Contains(s.Ports, "8080:8080") || !strings.Contains(string(dockerfile), "\nEXPOSE 8080\n") {
				t.Errorf("job %s, service %s: ports %v, want 8080:8080, the port the image exposes", name, sname, s.Ports)
			}
			for k := range s.Env {
				if !twins[k] {
					t.Errorf("job %s, service %s sets %s, which is no flag's environment variable", name, sname, k)
				}
			}
			if want := `--health-cmd "` + strings.Join(healthCmd, " ") + `"`; !strings.Contains(s.Options, want) {
				t.Errorf("job %s, service %s: options %q lack %s, the image's HEALTHCHECK", name, sname, s.Options, want)
			}
		}
		waits := slices.IndexFunc(job.Steps, func(st workflowStep) bool {
			return regexp.MustCompile(`until curl -sf http://localhost:8080/readyz\b`).MatchString(st.Run)
		})
		if waits < 0 || waits == len(job.Steps)-1 {
			t.Errorf("job %s: no step waits for http://localhost:8080/readyz before the tests", name)
		}
		if base := job.Env["SANDBOX_URL"]; base != "http://localhost:8080" {
			t.Errorf("job %s: SANDBOX_URL = %q, want the service's published port", name, base)
		}
	}
	if services == 0 {
		t.Error("the workflow has no service container")
	}
}

// releaseImage is the image a release publishes (cmd/release's Image),
// without a tag.
func releaseImage(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "cmd/release/main.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const Image = "([^"]+)"$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("cmd/release names no Image")
	}
	return string(m[1])
}

// imageRef finds, in the docs, the name of an image of the sandbox: a
// ghcr.io name, the tag of a build (docker build -t, buildah bud -t) and
// what docker run starts.
var imageRef = regexp.MustCompile("ghcr\\.io/[\\w.-]+/[\\w.-]+|(?:build|bud)\\s+(?:-t|--tag)\\s+([^\\s`]+)|docker run(?:\\s+-{1,2}[\\w-]+(?:\\s+[\\w:=.][\\w:=.-]*)?)*\\s+([^\\s`-][^\\s`]*)")

// TestOneImageName: every page, the README and the Dockerfile call the
// sandbox's image by the one name a release publishes it under, whether
// they pull, build or run it.
func TestOneImageName(t *testing.T) {
	t.Parallel()
	want := releaseImage(t)
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "examples", "*", "README.md"))
	files = append(append(files, examples...), filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "Dockerfile"),
		filepath.Join(repoRoot, "docs", "compose.yaml"))
	found := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range imageRef.FindAllStringSubmatch(string(raw), -1) {
			name := m[0]
			if m[1] != "" || m[2] != "" {
				name = m[1] + m[2]
			}
			if !strings.Contains(name, "threeds-sandbox") || strings.HasPrefix(name, "http") {
				continue // another image (swagger-ui, redis), or a build from a URL
			}
			found++
			if repo, _, _ := strings.Cut(name, ":"); repo != want {
				t.Errorf("%s: image %q, want %s (with a tag or none)", filepath.Base(f), name, want)
			}
		}
	}
	if found < 8 {
		t.Errorf("%d references to the image, want the docs' many", found)
	}
}
