package auth

import (
	"errors"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// TestOpenTokenWithoutNamespace: an open client's token of an earlier
// version, without its namespace, signed with the sandbox's own key, is
// refused, so that the client gets a new one (the client id alone chose
// its namespace then).
func TestOpenTokenWithoutNamespace(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	master := []byte("master key of thirty-two bytes!!")
	a, err := NewAccessTokens("http://sandbox", [][]byte{master}, time.Hour, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	claims := AccessClaims{Issuer: "http://sandbox", Subject: "shop-1", Audience: Audience, ClientID: "shop-1",
		IssuedAt: now.Unix(), NotBefore: now.Unix(), NotAfter: now.Add(time.Hour).Unix(), ID: "x", Open: true}
	raw, err := jws.Sign(a.keys[0], "", claims)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify(raw); !errors.Is(err, ErrTokenMalformed) {
		t.Errorf("an open token without its namespace: %v, want ErrTokenMalformed", err)
	}
	claims.Open, claims.Namespace = false, "0123456789abcdef"
	raw, _ = jws.Sign(a.keys[0], "", claims)
	if _, err := a.Verify(raw); !errors.Is(err, ErrTokenMalformed) {
		t.Errorf("a configured client's token naming a namespace: %v, want ErrTokenMalformed", err)
	}
}
