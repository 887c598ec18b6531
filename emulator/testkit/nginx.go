package testkit

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"
)

// Nginx returns the path of nginx (on the PATH or in /usr/sbin, where
// Debian puts it); see Need.
func Nginx(tb testing.TB) string {
	tb.Helper()
	return Need(tb, "nginx", "nginx", "/usr/sbin/nginx")
}

// Balancer is an nginx process of a test: a round-robin load balancer on
// a free loopback port in front of the upstreams it is given, with its own
// prefix directory. Its access log names the upstream that answered each
// request, so a test can see which replica served what.
type Balancer struct {
	// Addr is host:port of the balancer; URL is http://Addr.
	Addr, URL string

	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// config is nginx's configuration: one process (no master, so no switch
// to another user and no stray worker), everything under the prefix
// directory. A killed upstream is not set aside (max_fails=0): every
// request first tries the next server in turn, so a request that meets a
// dead one shows the retry.
var config = template.Must(template.New("nginx.conf").Parse(`daemon off;
master_process off;
worker_processes 1;
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log info;
events { worker_connections 1024; }
http {
    log_format upstreams '$upstream_addr $status $request_method $uri';
    access_log {{.Dir}}/access.log upstreams;
    client_body_temp_path {{.Dir}}/client_body;
    proxy_temp_path {{.Dir}}/proxy;
    fastcgi_temp_path {{.Dir}}/fastcgi;
    uwsgi_temp_path {{.Dir}}/uwsgi;
    scgi_temp_path {{.Dir}}/scgi;
    upstream replicas {
{{- range .Upstreams}}
        server {{.}} max_fails=0;
{{- end}}
    }
    server {
        listen {{.Addr}};
        location / {
            proxy_pass http://replicas;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 1s;
            proxy_read_timeout 30s;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }
    }
}
`))

// StartNginx starts nginx in front of upstreams (host:port each) and
// stops it when tb ends; when tb has failed, nginx's error log is printed.
func StartNginx(tb testing.TB, upstreams ...string) *Balancer {
	tb.Helper()
	bin := Nginx(tb)
	if len(upstreams) == 0 {
		tb.Fatal("testkit: nginx needs an upstream")
	}
	port := FreePort(tb)
	b := &Balancer{dir: tb.TempDir(), done: make(chan struct{})}
	b.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	b.URL = "http://" + b.Addr
	conf := filepath.Join(b.dir, "nginx.conf")
	f, err := os.Create(conf)
	if err != nil {
		tb.Fatal(err)
	}
	err = config.Execute(f, map[string]any{"Dir": b.dir, "Addr": b.Addr, "Upstreams": upstreams})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatalf("write %s: %v", conf, err)
	}
	b.cmd = exec.Command(bin, "-p", b.dir, "-c", conf, "-e", filepath.Join(b.dir, "error.log"))
	out, err := os.Create(filepath.Join(b.dir, "stderr.log"))
	if err != nil {
		tb.Fatal(err)
	}
	b.cmd.Stdout, b.cmd.Stderr = out, out
	if err := b.cmd.Start(); err != nil {
		out.Close()
		tb.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		_ = b.cmd.Wait()
		out.Close()
		close(b.done)
	}()
	tb.Cleanup(func() {
		b.stop()
		if tb.Failed() {
			tb.Logf("nginx error log:\n%s", b.ErrorLog())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", b.Addr, 100*time.Millisecond)
		if err == nil {
			conn.Close()
			return b
		}
		select {
		case <-b.done:
			tb.Fatalf("nginx exited at start-up:\n%s", b.ErrorLog())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nginx on %s did not listen within 10s:\n%s", b.Addr, b.ErrorLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends nginx: SIGQUIT lets it finish the requests in flight; SIGKILL
// after 5s.
func (b *Balancer) stop() {
	_ = b.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// ErrorLog returns nginx's error log and what it wrote to stderr.
func (b *Balancer) ErrorLog() string {
	var s strings.Builder
	for _, name := range []string{"stderr.log", "error.log"} {
		if raw, err := os.ReadFile(filepath.Join(b.dir, name)); err == nil {
			s.Write(raw)
		}
	}
	return s.String()
}

// Entry is one request of the access log.
type Entry struct {
	// Upstreams are the servers tried, in order: more than one when nginx
	// passed the request on to the next after an error or timeout; "-"
	// when none was tried.
	Upstreams []string
	Status    int
	Method    string
	Path      string
}

// Answered is the upstream that gave the answer: the last one tried.
func (e Entry) Answered() string {
	if len(e.Upstreams) == 0 {
		return ""
	}
	return e.Upstreams[len(e.Upstreams)-1]
}

// AccessLog returns the requests nginx has logged so far, oldest first.
// nginx writes a line when the answer is sent, so the entry of a request
// whose answer a client has read is there.
func (b *Balancer) AccessLog() ([]Entry, error) {
	f, err := os.Open(filepath.Join(b.dir, "access.log"))
	if err != nil {
		return nil, fmt.Errorf("nginx access log: %w", err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		e, err := parseEntry(sc.Text())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// AccessLogOf returns the access log once it holds at least n requests,
// or as it is after within: nginx writes a request's line as it sends
// the answer, so the line of an answer a client has just read may come a
// moment later.
func (b *Balancer) AccessLogOf(n int, within time.Duration) ([]Entry, error) {
	deadline := time.Now().Add(within)
	for {
		log, err := b.AccessLog()
		if err != nil || len(log) >= n || time.Now().After(deadline) {
			return log, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// parseEntry reads a line of the format upstreams: '$upstream_addr
// $status $request_method $uri', where $upstream_addr lists the servers
// tried as "a, b".
func parseEntry(line string) (Entry, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return Entry{}, fmt.Errorf("nginx access log: unexpected line %q", line)
	}
	n := len(fields)
	status, err := strconv.Atoi(fields[n-3])
	if err != nil {
		return Entry{}, fmt.Errorf("nginx access log: status of %q: %w", line, err)
	}
	var ups []string
	for _, u := range fields[:n-3] {
		ups = append(ups, strings.TrimSuffix(u, ","))
	}
	return Entry{Upstreams: ups, Status: status, Method: fields[n-2], Path: fields[n-1]}, nil
}
