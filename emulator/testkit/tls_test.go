package testkit_test

import (
	"crypto/tls"
	"errors"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestRedisTLS: a redis-server started with a test CA speaks TLS only,
// with a certificate that a client trusting that CA accepts and a client
// trusting another CA refuses.
func TestRedisTLS(t *testing.T) {
	t.Parallel()
	ca := testkit.NewTestCA(t, "test CA")
	srv := testkit.StartRedis(t, testkit.RedisOptions{TLS: ca})
	if !strings.HasPrefix(srv.URL, "rediss://") {
		t.Errorf("URL = %s, want rediss://", srv.URL)
	}
	if got, err := srv.Query("SET", "k", "v"); err != nil || got != "OK" {
		t.Fatalf("SET over TLS: %q, %v", got, err)
	}
	if got, _ := srv.Query("CONFIG", "GET", "port"); got != "port\n0" {
		t.Errorf("CONFIG GET port = %q, want no plain port", got)
	}

	other := testkit.NewTestCA(t, "other CA")
	conn, err := tls.Dial("tcp", srv.Addr, other.ClientConfig())
	if err == nil {
		conn.Close()
		t.Fatal("a client trusting another CA connected")
	}
	if !errors.As(err, new(*tls.CertificateVerificationError)) {
		t.Errorf("a client trusting another CA: %v, want a certificate verification error", err)
	}
}
