package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestConnectTLS: a rediss:// server whose certificate a test CA signed
// is reached with that CA as the only root, and refused at once, with
// ErrUntrusted, without it or with another CA, even when start-up may
// wait; a CA for a plain redis:// URL is a mistake named as such.
func TestConnectTLS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ca := testkit.NewTestCA(t, "store CA")
	srv := testkit.StartRedis(t, testkit.RedisOptions{TLS: ca})

	c, err := redisstore.ConnectWith(ctx, srv.URL, redisstore.ConnectOptions{Timeout: patient, RootCAs: ca.Pool})
	if err != nil {
		t.Fatalf("ConnectWith the server's CA: %v", err)
	}
	if err := c.Do(ctx, c.B().Set().Key("tls").Value("yes").Build()).Error(); err != nil {
		t.Errorf("SET over TLS: %v", err)
	}
	c.Close()
	if got, err := srv.Query("GET", "tls"); err != nil || got != "yes" {
		t.Errorf("GET tls = %q, %v", got, err)
	}

	other := testkit.NewTestCA(t, "other CA")
	for name, o := range map[string]redisstore.ConnectOptions{
		"the system's roots": {Timeout: time.Second, Wait: 10 * time.Second},
		"another CA":         {Timeout: time.Second, Wait: 10 * time.Second, RootCAs: other.Pool},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := redisstore.ConnectWith(ctx, srv.URL, o)
			if !errors.Is(err, redisstore.ErrUntrusted) {
				t.Fatalf("ConnectWith = %v, want ErrUntrusted", err)
			}
			if !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), srv.Addr) {
				t.Errorf("the error names neither the certificate nor the server: %v", err)
			}
			t.Log(err)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("ConnectWith waited %s for a certificate that waiting does not mend", d)
			}
		})
	}

	plain := testkit.StartRedis(t, testkit.RedisOptions{})
	if _, err := redisstore.ConnectWith(ctx, plain.URL, redisstore.ConnectOptions{RootCAs: ca.Pool}); err == nil || !strings.Contains(err.Error(), "rediss://") {
		t.Errorf("a CA for a redis:// URL: %v, want an error naming rediss://", err)
	}
}
