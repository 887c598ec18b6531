// Package redistest starts a real redis-server for a test, on a free
// loopback port in a directory of its own, and stops it when the test
// ends. Without redis-server on the PATH a test is skipped, but in CI
// (CI=true) it fails: there the server must be installed.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options of a server.
type Options struct {
	// AppendOnly turns on the append-only file (fsync every second), so
	// that acknowledged writes survive a restart.
	AppendOnly bool
}

// Server is a redis-server process of a test.
type Server struct {
	// Addr is host:port; URL the redis:// URL of database 0.
	Addr, URL string

	t    testing.TB
	opt  Options
	port int
	dir  string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Binary returns the path of redis-server, or skips tb (fails it in CI)
// when there is none.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis-server is not installed (CI installs it with apt-get install redis-server): %v", err)
		}
		tb.Skipf("redis-server is not installed: %v", err)
	}
	return path
}

// Start starts a server for tb and stops it when tb ends.
func Start(tb testing.TB, opt Options) *Server {
	tb.Helper()
	Binary(tb)
	port, err := freePort()
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{t: tb, opt: opt, port: port, dir: tb.TempDir()}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s.URL = "redis://" + s.Addr + "/0"
	s.start()
	tb.Cleanup(func() { s.kill() })
	return s
}

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() {
	s.t.Helper()
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--daemonize", "no", "--protected-mode", "no",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.opt.AppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	} else {
		args = append(args, "--appendonly", "no")
	}
	cmd := exec.Command(Binary(s.t), args...)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	go func() { _ = cmd.Wait() }()
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := s.Do("PING"); err == nil {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server on %s did not answer PING within 10s:\n%s", s.Addr, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Do sends one command with a plain client and checks that the server did
// not answer with an error. It is for setting up and inspecting tests.
func (s *Server) Do(args ...string) error {
	_, err := s.Query(args...)
	return err
}

// Query sends one command and returns its reply as text: a simple or bulk
// string, an integer, or the elements of an array joined by newlines.
func (s *Server) Query(args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", err
	}
	return readReply(bufio.NewReader(conn))
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis: %s", line[1:])
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		parts := make([]string, 0, max(n, 0))
		for range n {
			p, err := readReply(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// Stop shuts the server down; with the append-only file on, what it
// acknowledged is on disk.
func (s *Server) Stop() {
	s.t.Helper()
	_ = s.Do("SHUTDOWN", "NOSAVE")
	s.waitGone()
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	s.kill()
	s.waitGone()
}

func (s *Server) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
}

// waitGone waits until the port stops answering.
func (s *Server) waitGone() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", s.Addr, 100*time.Millisecond)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Errorf("redis-server on %s still answers after being stopped", s.Addr)
}

// Restart stops the server and starts it again on the same port and
// directory (so with its append-only file).
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Start starts a stopped server again on the same port and directory.
func (s *Server) Start() {
	s.t.Helper()
	s.start()
}
