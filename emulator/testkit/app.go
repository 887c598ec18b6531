package testkit

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// SDK is what an app's 3DS SDK holds during one transaction: its
// ephemeral key and the device information it encrypts for the directory
// server.
type SDK struct {
	Key *ecdh.PrivateKey
	// Device is the device data (DD) of the device information.
	Device map[string]any
	// NoKid leaves the key id out of sdkEncData's header.
	NoKid bool
}

// NewSDK is an SDK on an Android device in locale en-US, with personal
// data (a device name, an IP address, an IMEI) among its device data.
func NewSDK(tb testing.TB) *SDK {
	tb.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return &SDK{Key: k, Device: map[string]any{"C001": "Android", "C002": "Pixel 8", "C003": "Android", "C004": "15",
		"C005": "en-US", "C006": "Europe/Paris", "C009": "Jane's Pixel", "C010": "192.0.2.7", "A001": "356938035643809"}}
}

// browserOnly are the members of the example lookup an app lookup has
// not.
var browserOnly = []string{"ddcId", "threeDSCompInd", "browserInfo", "notificationUrl", "challengeWindowSize"}

// AppBody returns the example lookup as the app lookup of card that s
// makes for the directory server ds (its published key) whose id is
// dsID: deviceChannel 1, the SDK's ids of wiretest, its ephemeral key
// and the device information encrypted to ds; then changed by mutate
// (when not nil).
func (s *SDK) AppBody(tb testing.TB, card string, ds jose.JWK, dsID string, mutate func(m map[string]any)) map[string]any {
	tb.Helper()
	plain, err := json.Marshal(map[string]any{"DV": "1.6", "DD": s.Device, "DPNA": map[string]string{}, "SW": []string{"SW01"}})
	if err != nil {
		tb.Fatal(err)
	}
	if s.NoKid {
		ds.Kid = ""
	}
	enc, err := jose.EncryptSDKEncData(plain, ds, dsID)
	if err != nil {
		tb.Fatal(err)
	}
	return LookupBody(tb, card, func(m map[string]any) {
		for _, k := range browserOnly {
			delete(m, k)
		}
		m["deviceChannel"] = 1
		m["sdkAppId"], m["sdkTransId"], m["sdkReferenceNumber"] = wiretest.SDKAppID, wiretest.SDKTransID, wiretest.SDKRef
		m["sdkEphemPubKey"] = jose.ECPublicJWK(s.Key.PublicKey())
		m["sdkEncData"] = string(enc)
		m["sdkMaxTimeout"] = "05"
		m["deviceRenderOptions"] = map[string]any{"sdkInterface": "03", "sdkUiType": []string{"01", "02", "03", "04", "05"}}
		if mutate != nil {
			mutate(m)
		}
	})
}
