package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
)

// Fixed challenge state keys of the Redis-backed emulators: a shared store
// needs them set.
const (
	benchHashKey  = "6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8"
	benchBlockKey = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
)

// redisProc is a redis-server started for the benchmark.
type redisProc struct {
	URL    string
	client rueidis.Client
	cmd    *exec.Cmd
}

// startRedis starts redis-server on a free loopback port, configured as
// docs/deployment.md advises (append-only file, fsync every second), unless which
// is "off" or it is "auto" and no redis-server is installed (nil, nil).
func startRedis(ctx context.Context, which, dir string) (*redisProc, error) {
	bin := which
	switch which {
	case "off":
		return nil, nil
	case "auto":
		path, err := exec.LookPath("redis-server")
		if err != nil {
			return nil, nil
		}
		bin = path
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "redis")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", data, "--save", "",
		"--appendonly", "yes", "--appendfsync", "everysec", "--protected-mode", "no", "--logfile", filepath.Join(data, "redis.log"))
	orphanProof(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	url := "redis://127.0.0.1:" + strconv.Itoa(port) + "/0"
	client, err := redisstore.Connect(ctx, url, time.Second, 20*time.Second)
	if err != nil {
		stopProcess(cmd)
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	return &redisProc{URL: url, client: client, cmd: cmd}, nil
}

// Args are the emulator's flags for this Redis.
func (r *redisProc) Args() []string {
	return []string{"--store", r.URL, "--state-hash-key", benchHashKey, "--state-block-key", benchBlockKey}
}

// Close stops the server.
func (r *redisProc) Close() {
	r.client.Close()
	stopProcess(r.cmd)
}

// usedMemory reads used_memory from INFO memory.
func (r *redisProc) usedMemory(ctx context.Context) (int64, error) {
	info, err := r.client.Do(ctx, r.client.B().Info().Section("memory").Build()).ToString()
	if err != nil {
		return 0, fmt.Errorf("redis INFO memory: %w", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("redis INFO memory: no used_memory")
}

// redisMemoryPhase measures the Redis memory a stored transaction takes:
// n frictionless lookups of body to a sandbox served in this process with
// --store redis:// (and no journal), each with its own
// externalReferenceId; used_memory before and after, on an emptied Redis.
func redisMemoryPhase(ctx context.Context, n int, redis *redisProc, body []byte, stdout io.Writer, progress func(string, ...any)) error {
	progress("redis memory: %d lookups", n)
	if err := redis.client.Do(ctx, redis.client.B().Flushall().Build()).Error(); err != nil {
		return fmt.Errorf("redis FLUSHALL: %w", err)
	}
	lookups, err := newReferenced(body)
	if err != nil {
		return err
	}
	sb, err := startInProcess(append([]string{"--journal-size", "0"}, redis.Args()...)...)
	if err != nil {
		return err
	}
	defer sb.Close()
	client := sb.Client(memoryToken)
	client.HTTP = newClient(runtime.GOMAXPROCS(0))
	defer client.HTTP.CloseIdleConnections()
	before, err := redis.usedMemory(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := sendLookups(ctx, client, lookups, 0, n); err != nil {
		return fmt.Errorf("redis memory: %w", err)
	}
	elapsed := time.Since(start)
	after, err := redis.usedMemory(ctx)
	if err != nil {
		return err
	}
	perTx := float64(after-before) / float64(n)
	fmt.Fprintf(stdout, "## Redis memory per stored transaction\n\n%d frictionless lookups (`POST /authentication/brw`, from %d connections: %s, %.0f per second) to the emulator served in the benchmark's process as the binary is with `--store redis://…` and `--journal-size 0`, each with its own externalReferenceId, into an emptied redis-server; `used_memory` of `INFO memory` before and after (the transaction, its reference index, their keys and TTLs, Redis's own overhead).\n\n",
		n, runtime.GOMAXPROCS(0), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	fmt.Fprintln(stdout, "| stored | used_memory before | after | bytes per stored transaction |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|")
	fmt.Fprintf(stdout, "| %d | %.1f MB | %.1f MB | %.0f |\n", n, float64(before)/1e6, float64(after)/1e6, perTx)
	fmt.Fprintf(stdout, "\nTarget <= %d bytes per transaction in Redis: %s.\n\n", targetRedisPerTx, verdict(perTx <= targetRedisPerTx))
	return nil
}
