package sandbox

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestNamespaceKey: the key the namespaces are hashed under survives
// every rotation done as documented (a new current pair, the old one
// previous), however many follow one another, in a store that keeps it
// (Redis); the first replica makes the key its hash key always made, so
// that namespaces do not change; a replica with unrelated keys uses its
// own and says so. The memory store keeps nothing across a restart, so a
// rotation there starts with nothing to keep.
func TestNamespaceKey(t *testing.T) {
	pair := func(c byte) auth.KeyPair {
		return auth.KeyPair{Hash: bytes.Repeat([]byte{c}, 32), Block: bytes.Repeat([]byte{c + 1}, 32)}
	}
	k1, k2, k3, stranger := pair('1'), pair('3'), pair('5'), pair('7')
	registries := map[string]func(t *testing.T) state.KeyRegistry{
		"memory": func(*testing.T) state.KeyRegistry { return memstore.NewKeyRegistry(nil) },
		"redis": func(t *testing.T) state.KeyRegistry {
			srv := testkit.StartRedis(t, testkit.RedisOptions{})
			c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			r, err := redisstore.NewKeyRegistry(c, "", time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return r
		},
	}
	for name, newRegistry := range registries {
		t.Run(name, func(t *testing.T) {
			reg := newRegistry(t)
			open := func(pairs ...auth.KeyPair) ([]byte, bool) {
				t.Helper()
				k, shared, err := namespaceKey(context.Background(), reg, pairs)
				if err != nil {
					t.Fatal(err)
				}
				return k, shared
			}
			first, shared := open(k1)
			if !shared || !bytes.Equal(first, auth.NewNamespaceKey(k1.Hash)) {
				t.Fatalf("the first replica's key: shared %v, want the one its hash key makes", shared)
			}
			for i, pairs := range [][]auth.KeyPair{
				{k1},         // a replica restarted on the same keys
				{k1, k2},     // step 1 of a rotation: the new pair known, not yet current
				{k2, k1},     // step 2: the new pair current
				{k2},         // the old pair dropped
				{k3, k2},     // the next rotation
				{k3},         // and its old pair dropped
				{k2, k3, k1}, // an older replica that knows the newer pair
			} {
				if got, shared := open(pairs...); !shared || !bytes.Equal(got, first) {
					t.Errorf("step %d: shared %v, the key changed: %v", i, shared, !bytes.Equal(got, first))
				}
			}
			if got, shared := open(stranger); shared || bytes.Equal(got, first) {
				t.Errorf("a replica with unrelated keys: shared %v, the kept key %v; want its own key", shared, bytes.Equal(got, first))
			}
			if kept, _ := reg.NamespaceKey(context.Background()); kept.ID != auth.NamespaceKeyID(first) {
				t.Errorf("the store keeps key %s after a stranger came, want %s", kept.ID, auth.NamespaceKeyID(first))
			}
		})
	}
}
