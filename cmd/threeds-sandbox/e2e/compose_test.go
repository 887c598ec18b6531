//go:build full

package e2e

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// composeFile is the part of docs/compose.yaml the test reads.
type composeFile struct {
	Services map[string]struct {
		Image string `yaml:"image"`
		Build struct {
			Context    string `yaml:"context"`
			Dockerfile string `yaml:"dockerfile"`
		} `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		Volumes   []string `yaml:"volumes"`
		Ports     []string `yaml:"ports"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// TestComposeFile keeps the example deployment of docs/deployment.md honest:
// docs/compose.yaml parses, every variable a replica sets is a flag's
// environment twin whose value the program accepts, the replicas share
// their state keys, every service it names (dependencies, the store's
// host, nginx's upstreams) exists, Redis keeps an append-only file and
// refuses writes rather than evict when full, and nginx accepts
// docs/nginx.conf. Docker is not needed: the file is read, not run.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../docs/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docs/compose.yaml: %v", err)
	}

	twins := map[string]bool{}
	sandbox.FlagSet(&sandbox.Config{}, io.Discard).VisitAll(func(f *flag.Flag) { twins[sandbox.EnvName(f.Name)] = true })
	var replicas []string
	services := slices.Sorted(maps.Keys(c.Services))
	for _, name := range services {
		s := c.Services[name]
		for dep, d := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("%s depends on %s, which is no service of the file", name, dep)
			} else if d.Condition == "service_healthy" && len(c.Services[dep].Healthcheck.Test) == 0 {
				t.Errorf("%s waits for %s to be healthy, which has no healthcheck", name, dep)
			}
		}
	}
	keys := map[string]bool{}
	for name, s := range c.Services {
		if s.Build.Context == "" {
			continue
		}
		replicas = append(replicas, name)
		if _, err := os.Stat(filepath.Join("../../../docs", s.Build.Context, s.Build.Dockerfile)); err != nil {
			t.Errorf("%s builds from %s/%s: %v", name, s.Build.Context, s.Build.Dockerfile, err)
		}
		for k := range s.Environment {
			if !twins[k] {
				t.Errorf("%s sets %s, which is no flag's environment variable", name, k)
			}
		}
		if _, _, err := sandbox.Parse(nil, func(k string) string { return s.Environment[k] }, io.Discard); err != nil {
			t.Errorf("%s's environment is refused by the program:\n%v", name, err)
		}
		if store, err := url.Parse(s.Environment["THREEDS_STORE"]); err != nil || store.Scheme != "redis" || !slices.Contains(services, store.Hostname()) {
			t.Errorf("%s: THREEDS_STORE = %q, want the URL of a Redis service of the file", name, s.Environment["THREEDS_STORE"])
		}
		keys[s.Environment["THREEDS_STATE_HASH_KEY"]+":"+s.Environment["THREEDS_STATE_BLOCK_KEY"]] = true
		if got, want := strings.Join(s.Healthcheck.Test, " "), "CMD /threeds-sandbox healthcheck"; got != want {
			t.Errorf("%s healthcheck = %q, want %q", name, got, want)
		}
	}
	if len(replicas) < 2 {
		t.Errorf("replicas built from the repository: %v, want at least 2", replicas)
	}
	if len(keys) != 1 {
		t.Errorf("the replicas have %d different state key pairs, want 1 shared by all", len(keys))
	}

	redis := c.Services["redis"]
	cmd := strings.Join(redis.Command, " ")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`--appendonly yes\b`),
		regexp.MustCompile(`--maxmemory \d+[kmg]b\b`),
		regexp.MustCompile(`--maxmemory-policy noeviction\b`),
	} {
		if !want.MatchString(cmd) {
			t.Errorf("redis command %q lacks %s", cmd, want)
		}
	}
	if len(redis.Volumes) == 0 || !strings.HasSuffix(redis.Volumes[0], ":/data") {
		t.Errorf("redis volumes = %v, want a named volume on /data", redis.Volumes)
	} else if _, ok := c.Volumes[strings.TrimSuffix(redis.Volumes[0], ":/data")]; !ok {
		t.Errorf("redis volume %s is not declared under volumes", redis.Volumes[0])
	}

	nginx := c.Services["nginx"]
	if len(nginx.Ports) == 0 {
		t.Error("nginx publishes no port")
	}
	if !slices.ContainsFunc(nginx.Volumes, func(v string) bool { return strings.HasPrefix(v, "./nginx.conf:") }) {
		t.Errorf("nginx volumes = %v, want ./nginx.conf mounted", nginx.Volumes)
	}
	if got := len(nginx.DependsOn); got != len(replicas) {
		t.Errorf("nginx depends on %d services, want the %d replicas", got, len(replicas))
	}
	checkNginxConf(t, replicas)
}

// checkNginxConf runs nginx -t on docs/nginx.conf, with the replicas'
// host names (which only Docker's network resolves) replaced by the
// loopback address.
func checkNginxConf(t *testing.T, replicas []string) {
	t.Helper()
	bin := testkit.Nginx(t)
	raw, err := os.ReadFile("../../../docs/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(raw)
	upstreams := regexp.MustCompile(`(?m)^\s*server\s+([^\s:;]+):\d+;`).FindAllStringSubmatch(conf, -1)
	if len(upstreams) == 0 {
		t.Error("docs/nginx.conf names no upstream server")
	}
	for _, m := range upstreams {
		if !slices.Contains(replicas, m[1]) {
			t.Errorf("docs/nginx.conf balances to %s, which is no replica of docs/compose.yaml (%v)", m[1], replicas)
		}
	}
	for _, name := range replicas {
		if !strings.Contains(conf, "server "+name+":8080;") {
			t.Errorf("docs/nginx.conf does not balance to %s:8080", name)
		}
		conf = strings.ReplaceAll(conf, "server "+name+":", "server 127.0.0.1:")
	}
	dir := t.TempDir()
	// nginx -t creates its temporary directories: keep them in the test's
	// directory, so the check needs no root.
	var temps strings.Builder
	for _, kind := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&temps, "\n    %s_temp_path %s;", kind, filepath.Join(dir, kind))
	}
	if !strings.Contains(conf, "http {") {
		t.Fatal("docs/nginx.conf has no http block")
	}
	conf = strings.Replace(conf, "http {", "http {"+temps.String(), 1)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-t", "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"),
		"-g", "pid "+filepath.Join(dir, "nginx.pid")+";").CombinedOutput()
	if err != nil {
		t.Errorf("nginx -t refuses docs/nginx.conf: %v\n%s", err, out)
	}
}
