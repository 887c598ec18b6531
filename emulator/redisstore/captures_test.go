package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestCapturesKeyNames: no key name of the captures holds a ddcId, a JWT
// id or a tenant, only keyed hashes; and after a key rotation the
// entries named under the previous key are still found and still refuse
// a second use.
func TestCapturesKeyNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c := connect(t, srv)
	const ddcID, jti, tenant = "order-4111111111111111", "jti-4000000000009409", "abcdef0123456789"
	old, err := redisstore.NewCaptures(c, redisstore.CapturesOptions{Prefix: "k:", Timeout: patient, Keys: [][]byte{[]byte("the old key")}})
	if err != nil {
		t.Fatal(err)
	}
	k := state.DDCKey{Tenant: tenant, Generation: 7, DDCID: ddcID}
	if ok, err := old.BindDDC(ctx, k, "tx-1", time.Hour); !ok || err != nil {
		t.Fatalf("BindDDC = %v, %v", ok, err)
	}
	if ok, err := old.UseJTI(ctx, tenant, jti, time.Hour); !ok || err != nil {
		t.Fatalf("UseJTI = %v, %v", ok, err)
	}
	keys, err := c.Do(ctx, c.B().Keys().Pattern("*").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Errorf("keys %q, want a ddcId, a JWT id and the tenant's set of each", keys)
	}
	for _, key := range keys {
		for _, v := range []string{ddcID, jti, tenant, "4111111111111111", "4000000000009409"} {
			if strings.Contains(key, v) {
				t.Errorf("key name %q holds %q", key, v)
			}
		}
	}

	rotated, err := redisstore.NewCaptures(c, redisstore.CapturesOptions{Prefix: "k:", Timeout: patient, Keys: [][]byte{[]byte("the new key"), []byte("the old key")}})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := rotated.DDC(ctx, k); id != "tx-1" || err != nil {
		t.Errorf("after the rotation DDC = %q, %v", id, err)
	}
	if ok, err := rotated.BindDDC(ctx, k, "tx-2", time.Hour); ok || err != nil {
		t.Errorf("after the rotation a second bind = %v, %v, want refused", ok, err)
	}
	if ok, err := rotated.UseJTI(ctx, tenant, jti, time.Hour); ok || err != nil {
		t.Errorf("after the rotation a replay = %v, %v, want refused", ok, err)
	}
	if _, err := redisstore.NewCaptures(c, redisstore.CapturesOptions{}); err == nil {
		t.Error("captures without a key were made")
	}
}
