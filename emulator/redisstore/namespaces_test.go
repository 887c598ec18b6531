package redisstore_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestNamespacesKeys: a namespace's state is one key with the store's
// TTL, gone once the state is zero again; a damaged value is an error,
// not a state.
func TestNamespacesKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	n, err := redisstore.NewNamespaces(connect(t, srv), redisstore.NamespacesOptions{Prefix: "p:", MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	if _, err := n.Advance(ctx, "ns", 90*time.Second, time.Hour); err != nil {
		t.Fatal(err)
	}
	v, err := srv.Query("GET", "p:n:ns")
	if err != nil || v != strconv.FormatInt(int64(90*time.Second), 10)+" 0" {
		t.Errorf("stored state %q, %v", v, err)
	}
	ttl, _ := srv.Query("PTTL", "p:n:ns")
	if ms, _ := strconv.Atoi(ttl); ms <= 0 || ms > int(time.Hour/time.Millisecond) {
		t.Errorf("PTTL %s, want up to an hour", ttl)
	}
	if _, err := n.ResetClock(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if v, _ := srv.Query("EXISTS", "p:n:ns"); v != "0" {
		t.Errorf("the zero state keeps its key (EXISTS %s)", v)
	}
	if err := srv.Do("SET", "p:n:bad", "x y"); err != nil {
		t.Fatal(err)
	}
	if st, err := n.State(ctx, "bad"); err == nil {
		t.Errorf("damaged state read as %+v", st)
	}
	if _, err := redisstore.NewNamespaces(nil, redisstore.NamespacesOptions{MaxAge: time.Hour}); err == nil {
		t.Error("NewNamespaces without a client")
	}
	if _, err := redisstore.NewNamespaces(connect(t, srv), redisstore.NamespacesOptions{}); err == nil {
		t.Error("NewNamespaces without a max age")
	}
	var _ state.Namespaces = n
}
