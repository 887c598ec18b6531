package sandboxtest

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// DirectoryServer is one directory server as GET /sdk/directory-servers
// publishes it: its id, the key an SDK encrypts the device information
// to, and the roots acsSignedContent leads to.
type DirectoryServer = web.DirectoryServer

// DirectoryServers returns the directory servers the sandbox publishes
// (GET /sdk/directory-servers).
func (c *Client) DirectoryServers(ctx context.Context) ([]DirectoryServer, error) {
	var out web.DirectoryServers
	if _, err := c.do(ctx, http.MethodGet, web.PathDirectoryServers, nil, &out, nil); err != nil {
		return nil, err
	}
	return out.DirectoryServers, nil
}

// SDK plays an app's 3DS SDK for one transaction: its ids, its ephemeral
// key, and the device information it encrypts for the directory server.
type SDK struct {
	AppID, TransID, ReferenceNumber string
	// Key is the SDK's ephemeral key; its public half goes in the lookup
	// (sdkEphemPubKey), and with the ACS's it agrees the exchange key.
	Key *ecdh.PrivateKey
	// Device is the device data (DD) of the device information: C001
	// platform, C005 locale (it chooses the challenge's language)...
	Device map[string]any
}

// NewSDK returns an SDK with fresh ids and key, on an Android device in
// locale en-US, with the reference number of Stripe's Android SDK.
func NewSDK() (*SDK, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: the SDK's key: %w", err)
	}
	return &SDK{AppID: newUUID(), TransID: newUUID(), ReferenceNumber: "3DS_LOA_SDK_STIN_020100_00142", Key: k,
		Device: map[string]any{"C001": "Android", "C002": "Pixel 8", "C003": "Android", "C004": "15", "C005": "en-US", "C006": "Europe/Paris"}}, nil
}

// AppLookupBody returns a valid app lookup (POST /authentication/app)
// for card as s makes it for the directory server ds: the browser
// lookup's fields without the browser's, deviceChannel 1, and the SDK's,
// its device information encrypted to ds's key as the SDKs do. The
// caller may change the map before AppLookup.
func (s *SDK) AppLookupBody(card string, ds DirectoryServer) (map[string]any, error) {
	plain, err := json.Marshal(map[string]any{"DV": "1.6", "DD": s.Device, "DPNA": map[string]string{}, "SW": []string{}})
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: device information: %w", err)
	}
	enc, err := jose.EncryptSDKEncData(plain, ds.EncryptionKey, ds.DirectoryServerID)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: sdkEncData for %s: %w", ds.DirectoryServerID, err)
	}
	m := LookupBody(card)
	for _, k := range []string{"ddcId", "threeDSCompInd", "browserInfo", "notificationUrl", "challengeWindowSize"} {
		delete(m, k)
	}
	m["deviceChannel"] = 1
	m["sdkAppId"], m["sdkTransId"], m["sdkReferenceNumber"] = s.AppID, s.TransID, s.ReferenceNumber
	m["sdkEphemPubKey"] = jose.ECPublicJWK(s.Key.PublicKey())
	m["sdkEncData"] = string(enc)
	m["sdkMaxTimeout"] = "05"
	m["deviceRenderOptions"] = map[string]any{"sdkInterface": "03", "sdkUiType": []string{"01", "02", "03", "04", "05"}}
	return m, nil
}

// AppLookupResult is the answer of an app lookup, and on a challenge what
// the SDK makes of acsSignedContent: where to post the CReqs and the key
// that encrypts them.
type AppLookupResult struct {
	LookupResult
	SDKTransID       string `json:"sdkTransId"`
	ACSSignedContent string `json:"acsSignedContent"`
	ACSRenderingType *struct {
		Interface  string `json:"acsInterface"`
		UITemplate string `json:"acsUiTemplate"`
	} `json:"acsRenderingType"`
	// ACSTransID and ACSReferenceNumber name the ACS, as the SDK's
	// ChallengeParameters take them.
	ACSTransID         string `json:"acsTransId"`
	ACSReferenceNumber string `json:"acsReferenceNumber"`
	// ACSURL is the acsURL of acsSignedContent, and ExchangeKey the key
	// of the CReq/CRes JWEs that s derives with the ACS's ephemeral key
	// (32 bytes, see jose.EncryptDirect); both empty without a challenge.
	ACSURL      string `json:"-"`
	ExchangeKey []byte `json:"-"`
}

// AppLookup sends an app lookup made by s (POST /authentication/app;
// body as AppLookupBody returns it, perhaps changed) and, on a challenge,
// reads acsSignedContent as the SDK does: its acsURL, and the exchange
// key derived from the ACS's ephemeral key. It does not check the
// signature's chain: see jose.ParseJWS and (*jose.JWS).Verify.
func (c *Client) AppLookup(ctx context.Context, s *SDK, body any) (*AppLookupResult, error) {
	var out AppLookupResult
	h, err := c.do(ctx, http.MethodPost, "/authentication/app", body, &out, &out.Raw)
	if err != nil {
		return nil, err
	}
	out.ScenarioID = h.Get(web.ScenarioIDHeader)
	if out.ACSSignedContent == "" {
		return &out, nil
	}
	jws, err := jose.ParseJWS([]byte(out.ACSSignedContent))
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: acsSignedContent: %w", err)
	}
	var p struct {
		ACSURL         string   `json:"acsURL"`
		ACSEphemPubKey jose.JWK `json:"acsEphemPubKey"`
	}
	if err := json.Unmarshal(jws.Payload, &p); err != nil {
		return nil, fmt.Errorf("sandboxtest: acsSignedContent's payload: %w", err)
	}
	acs, err := p.ACSEphemPubKey.ECPublicKey()
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: acsEphemPubKey: %w", err)
	}
	if out.ExchangeKey, err = jose.DeriveKey(s.Key, acs, s.ReferenceNumber); err != nil {
		return nil, fmt.Errorf("sandboxtest: the exchange key: %w", err)
	}
	out.ACSURL = p.ACSURL
	return &out, nil
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	b := []byte(randomHex(16))
	b[12] = '4'
	b[16] = "89ab"[b[16]%4]
	return string(b[:8]) + "-" + string(b[8:12]) + "-" + string(b[12:16]) + "-" + string(b[16:20]) + "-" + string(b[20:])
}
