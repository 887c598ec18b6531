package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scripts/tools/internal/product"
)

// buildBinary builds cmd/threeds-sandbox into dir and returns its path.
func buildBinary(ctx context.Context, dir string) (string, error) {
	return buildTagged(ctx, dir, "")
}

// buildTagged builds the emulator binary into dir with the build tags
// tags (none when empty), in the sandbox's module with its own go.mod.
func buildTagged(ctx context.Context, dir, tags string) (string, error) {
	root, err := product.Dir(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "threeds-sandbox")
	args := []string{"build", "-o", bin}
	if tags != "" {
		bin += "-" + tags
		args = []string{"build", "-tags", tags, "-o", bin}
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/threeds-sandbox")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s ./cmd/threeds-sandbox: %w\n%s", strings.Join(args[:len(args)-2], " "), err, out)
	}
	return bin, nil
}

// freePort picks a loopback port that is free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cleanEnv is this process's environment without THREEDS_* settings, so
// the binary starts with its defaults.
func cleanEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "THREEDS_") })
}

// coldStart execs the binary with its default catalogue and measures the
// time from the start of the process to the first 200 of /readyz (or of
// /healthz when the binary has no /readyz).
func coldStart(ctx context.Context, bin string) (time.Duration, string, error) {
	port, err := freePort()
	if err != nil {
		return 0, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.CommandContext(ctx, bin, "--addr", addr, "--log-level", "warn", "--drain-delay", "0")
	cmd.Env = cleanEnv()
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 200 * time.Millisecond}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, "", fmt.Errorf("cold start: %w", err)
	}
	defer stopProcess(cmd)
	probe := "/readyz"
	for deadline := start.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		resp, err := client.Get("http://" + addr + probe)
		if err != nil {
			continue
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			return time.Since(start), probe, nil
		case resp.StatusCode == http.StatusNotFound && probe == "/readyz":
			probe = "/healthz"
		}
	}
	return 0, "", errors.New("cold start: the binary did not become ready within 10s")
}

// stopProcess ends a started binary (with its process group, when it
// leads one): SIGTERM, then a kill after 5 s.
func stopProcess(cmd *exec.Cmd) {
	_ = signalProcess(cmd, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = signalProcess(cmd, syscall.SIGKILL)
		<-done
	}
	if leadsGroup(cmd) {
		_ = signalProcess(cmd, syscall.SIGKILL) // what the leader left behind
	}
}
