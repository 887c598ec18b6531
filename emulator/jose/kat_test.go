package jose_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rsa"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

// The known answers of testdata/kat.json were computed by
// testdata/kat.mjs with Node's WebCrypto, outside Go, from the fixed test
// keys of testdata/keys.json.

type katFile struct {
	SDKReferenceNumber string `json:"sdkReferenceNumber"`
	ACSTransID         string `json:"acsTransID"`
	SharedSecret       string `json:"sharedSecret"`
	Key                string `json:"key"`
	Messages           []struct {
		Enc, Direction, Plaintext, Compact string
		Counter                            uint8
	} `json:"messages"`
	SDKEncData struct {
		DeviceInfo        string `json:"deviceInfo"`
		DirectoryServerID string `json:"directoryServerID"`
		RSA               string `json:"rsa"`
		EC                string `json:"ec"`
	} `json:"sdkEncData"`
}

type privateJWK struct {
	jose.JWK
	D, P, Q, DP, DQ, QI string
}

func readKAT(t testing.TB) (katFile, map[string]privateJWK) {
	t.Helper()
	var kat katFile
	var keys map[string]privateJWK
	for file, v := range map[string]any{"testdata/kat.json": &kat, "testdata/keys.json": &keys} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return kat, keys
}

func ecPrivate(t *testing.T, k privateJWK) *ecdh.PrivateKey {
	t.Helper()
	priv, err := ecdh.P256().NewPrivateKey(unb64(t, k.D))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := k.ECPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	if !priv.PublicKey().Equal(pub) {
		t.Fatal("the test key's d does not match its x and y")
	}
	return priv
}

func rsaPrivate(t *testing.T, k privateJWK) *rsa.PrivateKey {
	t.Helper()
	n := func(s string) *big.Int { return new(big.Int).SetBytes(unb64(t, s)) }
	priv := &rsa.PrivateKey{
		PublicKey: rsa.PublicKey{N: n(k.N), E: int(n(k.E).Int64())},
		D:         n(k.D),
		Primes:    []*big.Int{n(k.P), n(k.Q)},
	}
	if err := priv.Validate(); err != nil {
		t.Fatal(err)
	}
	priv.Precompute()
	return priv
}

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestKnownAnswers(t *testing.T) {
	kat, keys := readKAT(t)
	acs, sdk := ecPrivate(t, keys["acs"]), ecPrivate(t, keys["sdk"])
	want, _ := hex.DecodeString(kat.Key)

	// The ACS derives with its private key and the SDK's public one, the
	// SDK the other way round: both reach WebCrypto's key.
	for name, pair := range map[string][2]*ecdh.PrivateKey{"ACS": {acs, sdk}, "SDK": {sdk, acs}} {
		got, err := jose.DeriveKey(pair[0], pair[1].PublicKey(), kat.SDKReferenceNumber)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s's DeriveKey = %x, want %x", name, got, want)
		}
	}
	z, _ := hex.DecodeString(kat.SharedSecret)
	if got := jose.ConcatKDF(z, "", nil, []byte(kat.SDKReferenceNumber), 32); !bytes.Equal(got, want) {
		t.Errorf("ConcatKDF = %x, want %x", got, want)
	}

	for _, m := range kat.Messages {
		d := jose.SDKToACS
		if m.Direction == "ACSToSDK" {
			d = jose.ACSToSDK
		}
		got, err := jose.EncryptDirect([]byte(m.Plaintext), want, m.Enc, kat.ACSTransID, d, m.Counter)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != m.Compact {
			t.Errorf("%s %s counter %d: EncryptDirect =\n%s\nwant\n%s", m.Enc, m.Direction, m.Counter, got, m.Compact)
		}
		j, err := jose.ParseJWE([]byte(m.Compact))
		if err != nil {
			t.Fatal(err)
		}
		pt, err := j.DecryptDirect(want, d)
		if err != nil || string(pt) != m.Plaintext {
			t.Errorf("%s %s counter %d: DecryptDirect = %q, %v; want %q", m.Enc, m.Direction, m.Counter, pt, err, m.Plaintext)
		}
		if j.Header.Kid != kat.ACSTransID || j.Header.Alg != "dir" || j.Header.Enc != m.Enc {
			t.Errorf("header %+v", j.Header)
		}
	}

	for name, dk := range map[string]struct {
		key     jose.DirectoryKey
		compact string
	}{
		"RSA-OAEP-256": {jose.DirectoryKey{ID: kat.SDKEncData.DirectoryServerID, Kid: "kat-rsa", RSA: rsaPrivate(t, keys["rsa"])}, kat.SDKEncData.RSA},
		"EC dir+epk":   {jose.DirectoryKey{ID: kat.SDKEncData.DirectoryServerID, EC: ecPrivate(t, keys["ds"])}, kat.SDKEncData.EC},
	} {
		got, err := jose.DecryptSDKEncData([]byte(dk.compact), dk.key)
		if err != nil || string(got) != kat.SDKEncData.DeviceInfo {
			t.Errorf("%s: DecryptSDKEncData = %q, %v; want %q", name, got, err, kat.SDKEncData.DeviceInfo)
		}
	}
}

// TestKnownAnswersRecomputed has WebCrypto compute the deterministic
// vectors again, so kat.json stays what an implementation outside Go
// makes. CI has Node; elsewhere the test needs it too, or it is skipped.
func TestKnownAnswersRecomputed(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is needed to recompute the known answers in CI")
		}
		t.Skip("node is not installed")
	}
	out, err := exec.Command(node, "testdata/kat.mjs", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("node testdata/kat.mjs --check: %v\n%s", err, out)
	}
}
