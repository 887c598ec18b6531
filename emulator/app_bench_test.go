package emulator_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// BenchmarkLookupAppChallenge is the engine's share of an app lookup of
// the challenge card of BenchmarkLookupChallenge, from every CPU at once:
// sdkEncData decrypted with the directory server's RSA key (RSA-OAEP-256,
// F055545342, what the SDKs send to the published keys) or EC key
// (ECDH-ES, F155545342), a fresh ACS key, the ECDH and Concat KDF of the
// exchange key, the ES256 signature of acsSignedContent, the key sealed.
// Run beside BenchmarkLookupChallenge: the ratio is the figure.
func BenchmarkLookupAppChallenge(b *testing.B) {
	for _, ds := range []struct{ name, id string }{{"rsa", "F055545342"}, {"ec", "F155545342"}} {
		b.Run(ds.name, func(b *testing.B) {
			e := newBenchEngine(b)
			server, ok := e.Directory().ForID(ds.id)
			if !ok {
				b.Fatalf("no directory server %s", ds.id)
			}
			body, err := json.Marshal(testkit.NewSDK(b).AppBody(b, e.challenge.Card.CardNumber, server.EncryptionKey, server.ID, nil))
			if err != nil {
				b.Fatal(err)
			}
			req, _, err := wire.DecodeApp(body)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					resp, err := e.Lookup(ctx, benchNamespace, req, emulator.APICall{Body: body})
					if err != nil || resp.Status != "C" {
						b.Errorf("app Lookup: got status %q, error %v; want C", resp.Status, err)
						return
					}
				}
			})
		})
	}
}
