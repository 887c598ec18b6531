package testkit

import (
	"bufio"
	"crypto/tls"
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

// redisServer returns the path of redis-server (see Need).
func redisServer(tb testing.TB) string {
	tb.Helper()
	return Need(tb, "redis-server", "redis-server")
}

// RedisOptions set up a redis-server.
type RedisOptions struct {
	// AppendOnly turns on the append-only file with an fsync per write
	// (appendfsync always), so that every acknowledged write survives a
	// restart, a kill -9 included: with everysec, Redis may delay its
	// writes for up to two seconds when the disk is slow.
	AppendOnly bool
	// MaxMemory, when set, is the server's maxmemory ("64mb", or bytes);
	// empty leaves it unlimited. A test may change it while the server
	// runs: Do("CONFIG", "SET", "maxmemory", "1") makes every write fail
	// with OOM at once.
	MaxMemory string
	// Policy, when set, is the server's maxmemory-policy (noeviction,
	// allkeys-lru, volatile-ttl...); empty keeps Redis's default,
	// noeviction.
	Policy string
	// Cluster starts the server with cluster mode on (cluster-enabled
	// yes), as one node of a Redis Cluster: see StartRedisCluster.
	Cluster bool
	// TLS, when set, makes the server speak TLS only, with a certificate
	// for the loopback addresses that this authority issues; the URL is
	// then rediss://. Clients need no certificate of their own.
	TLS *TestCA
}

// Redis is a redis-server process of a test.
type Redis struct {
	// Addr is host:port; URL the redis:// URL of database 0.
	Addr, URL string

	t    testing.TB
	bin  string
	opt  RedisOptions
	port int
	dir  string

	// busPort is a cluster node's bus port, drawn as its port is: the
	// default, port+10000, may be taken.
	busPort int

	certFile, keyFile string // the server's certificate with TLS

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartRedis starts a redis-server for tb and kills it when tb ends.
func StartRedis(tb testing.TB, opt RedisOptions) *Redis {
	tb.Helper()
	s := &Redis{t: tb, bin: redisServer(tb), opt: opt, port: FreePort(tb), dir: tb.TempDir()}
	if opt.Cluster {
		s.busPort = FreePort(tb)
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.URL = "redis://" + s.Addr + "/0"
	if opt.TLS != nil {
		s.URL = "rediss://" + s.Addr + "/0"
		s.certFile, s.keyFile = opt.TLS.Issue(tb)
	}
	s.start()
	tb.Cleanup(func() { s.kill() })
	return s
}

func (s *Redis) start() {
	s.t.Helper()
	plain := strconv.Itoa(s.port)
	if s.opt.TLS != nil {
		plain = "0" // TLS only
	}
	args := []string{
		"--port", plain, "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--daemonize", "no", "--protected-mode", "no",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.opt.TLS != nil {
		args = append(args, "--tls-port", strconv.Itoa(s.port), "--tls-cert-file", s.certFile, "--tls-key-file", s.keyFile,
			"--tls-ca-cert-file", s.opt.TLS.File, "--tls-auth-clients", "no")
	}
	if s.opt.AppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.opt.Cluster {
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(s.dir, "nodes.conf"),
			"--cluster-node-timeout", "2000", "--cluster-port", strconv.Itoa(s.busPort))
		if s.opt.TLS != nil {
			args = append(args, "--tls-cluster", "yes", "--tls-replication", "yes")
		}
	}
	if s.opt.MaxMemory != "" {
		args = append(args, "--maxmemory", s.opt.MaxMemory)
	}
	if s.opt.Policy != "" {
		args = append(args, "--maxmemory-policy", s.opt.Policy)
	}
	cmd := exec.Command(s.bin, args...)
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
func (s *Redis) Do(args ...string) error {
	_, err := s.Query(args...)
	return err
}

// Query sends one command and returns its reply as text: a simple or bulk
// string, an integer, or the elements of an array joined by newlines.
func (s *Redis) Query(args ...string) (string, error) {
	conn, err := s.dial()
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

// dial connects to the server, over TLS when it speaks TLS.
func (s *Redis) dial() (net.Conn, error) {
	d := &net.Dialer{Timeout: time.Second}
	if s.opt.TLS != nil {
		return tls.DialWithDialer(d, "tcp", s.Addr, s.opt.TLS.ClientConfig())
	}
	return d.Dial("tcp", s.Addr)
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
func (s *Redis) Stop() {
	s.t.Helper()
	_ = s.Do("SHUTDOWN", "NOSAVE")
	s.waitGone()
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *Redis) Kill() {
	s.kill()
	s.waitGone()
}

func (s *Redis) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
}

// waitGone waits until the port stops answering.
func (s *Redis) waitGone() {
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

// Start starts a stopped server again on the same port and directory.
func (s *Redis) Start() {
	s.t.Helper()
	s.start()
}
