package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// replica starts a sandbox on the Redis store url with the state keys
// hash and block, and stops it when t ends.
func replica(t *testing.T, url, hash, block string) *Sandbox {
	t.Helper()
	env := map[string]string{"THREEDS_STORE": url, "THREEDS_STATE_HASH_KEY": hash, "THREEDS_STATE_BLOCK_KEY": block}
	c, _, err := Parse([]string{"--addr", "127.0.0.1:0"}, envOf(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := New(c, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	stop, err := sb.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	return sb
}

// TestReplicasOpenEachOthersExchangeKeys: the engine seals an app
// challenge's exchange key under a key derived from the namespace key,
// which replicas sharing the store and the state keys hold alike: the
// other replica opens it, and it is the key the SDK derives. A replica
// with other state keys holds another namespace key and opens nothing.
func TestReplicasOpenEachOthersExchangeKeys(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	hash, block := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	a, b := replica(t, srv.URL, hash, block), replica(t, srv.URL, hash, block)

	s := testkit.NewSDK(t)
	server, _ := a.Engine.Directory().ForID("A000000003")
	body, err := json.Marshal(s.AppBody(t, "4000000000009102", server.EncryptionKey, server.ID, nil))
	if err != nil {
		t.Fatal(err)
	}
	req, _, err := wire.DecodeApp(body)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "ns-replicas"
	resp, err := a.Engine.Lookup(context.Background(), ns, req, emulator.APICall{})
	if err != nil || resp.Status != "C" {
		t.Fatalf("app lookup on replica a: %+v, %v", resp.Status, err)
	}
	jws, err := jose.ParseJWS([]byte(resp.ACSSignedContent))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ ACSEphemPubKey jose.JWK }
	if err := json.Unmarshal(jws.Payload, &p); err != nil {
		t.Fatal(err)
	}
	acsPub, err := p.ACSEphemPubKey.ECPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	want, err := jose.DeriveKey(s.Key, acsPub, wiretest.SDKRef)
	if err != nil {
		t.Fatal(err)
	}
	for name, sb := range map[string]*Sandbox{"a": a, "b": b} {
		got, err := sb.Engine.ExchangeKey(context.Background(), ns, resp.ThreeDSServerTransID)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("replica %s opens %x (%v), the SDK derives %x", name, got, err, want)
		}
	}
	other := replica(t, srv.URL, strings.Repeat("ef", 32), strings.Repeat("01", 32))
	if _, err := other.Engine.ExchangeKey(context.Background(), ns, resp.ThreeDSServerTransID); err == nil {
		t.Error("a replica with other state keys opened the exchange key")
	}
}
