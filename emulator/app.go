package emulator

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds what only the app channel (deviceChannel 1) needs at
// the lookup: the device information the SDK encrypted for the directory
// server, the rendering the SDK can show, and the challenge's answer to
// the SDK (acsSignedContent and the exchange key, sealed). The lookup
// itself is the engine's one (LookupEncoded); the CReq/CRes exchange
// that follows is the ACS endpoint's.

// TestDirectoryServer is the directory server of an sdkEncData whose JWE
// names no key id, for a card whose scheme has none: Stripe's test id,
// the one the SDKs use in test mode.
const TestDirectoryServer = "F055545342"

// sdkEncDataField names sdkEncData in errors.
const sdkEncDataField = "sdkEncData"

// appLookup is what an app lookup learns before its transaction is made.
type appLookup struct {
	// server is the directory server the device information was
	// encrypted to: the ACS signs its answer with a chain under its
	// roots, the roots the app gave its SDK.
	server *directory.Server
	device state.DeviceInfo
	// masked is the device information with personal data masked, as the
	// lookup's event keeps it.
	masked string
}

// openDevice decrypts the device information of an app lookup for a
// card of scheme, with the directory server the JWE's kid names, else the
// scheme's, else TestDirectoryServer.
func (e *Engine) openDevice(req *message.AppRequest, scheme string) (appLookup, error) {
	j, err := jose.ParseJWE([]byte(req.SDKEncData))
	if err != nil {
		return appLookup{}, encDataError("is not a compact JWE the sandbox reads: " + err.Error())
	}
	d := e.cfg.Directory
	var server *directory.Server
	var ok bool
	switch kid := j.Header.Kid; {
	case kid != "":
		if server, ok = d.ForKid(kid); !ok {
			return appLookup{}, encDataError(fmt.Sprintf("is encrypted to the key id %q, which no directory server of the sandbox has: "+
				"encrypt to one of the keys GET /sdk/directory-servers lists", kid))
		}
	default:
		if server, ok = d.ForScheme(scheme); !ok {
			server, ok = d.ForID(TestDirectoryServer)
		}
		if !ok {
			return appLookup{}, encDataError("names no key id, and the sandbox has no directory server for scheme " + scheme + " nor " + TestDirectoryServer)
		}
	}
	plain, err := jose.DecryptSDKEncData([]byte(req.SDKEncData), server.Key)
	if err != nil {
		why := "does not decrypt with the key " + server.Key.Kid + " of directory server " + server.ID
		switch {
		case errors.Is(err, jose.ErrUnsupported), errors.Is(err, jose.ErrFormat):
			why += ": " + strings.TrimPrefix(err.Error(), "jose: ")
		default:
			why += " (a wrong key or an altered message: the authentication tag does not match)"
		}
		return appLookup{}, encDataError(why)
	}
	device, masked, err := readDevice(plain)
	if err != nil {
		return appLookup{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			"sdkEncData decrypted, but its content is not the EMV device information: "+err.Error(), sdkEncDataField)
	}
	return appLookup{server: server, device: device, masked: masked}, nil
}

// encDataError is the refusal of an sdkEncData that does not decrypt:
// EMV 302 (data decryption failure) reported by the directory server,
// whose key it was encrypted to.
func encDataError(why string) *emv.Error {
	e := emv.NewError(emv.CodeSDKEncData, emv.EMVDecryptionFailure, "sdkEncData "+why, sdkEncDataField)
	e.Component = emv.ComponentDirectory
	return e
}

// deviceInfo is the plaintext of sdkEncData: EMV's device information.
type deviceInfo struct {
	DV   string            `json:"DV"`
	DD   map[string]any    `json:"DD"`
	DPNA map[string]string `json:"DPNA"`
	SW   []string          `json:"SW"`
}

// Bounds of the device information the lookup's event keeps.
const (
	maxDeviceMembers = 64
	maxDeviceValue   = 64
)

// deviceKept are the members of DD the journal keeps as sent: what says
// which device and software it is, and nothing of its owner. Every other
// member (C007 advertising id, C009 device name, C010 IP address, C011
// and C012 location, the platforms' own A... and I... identifiers) is
// masked.
var deviceKept = map[string]bool{"C001": true, "C002": true, "C003": true, "C004": true, "C005": true, "C006": true,
	"C008": true, "C013": true, "C014": true, "C015": true, "C016": true, "C017": true, "C018": true}

// readDevice reads the device information: what the transaction keeps of
// it, and its JSON with personal data masked.
func readDevice(plain []byte) (state.DeviceInfo, string, error) {
	var di deviceInfo
	if err := json.Unmarshal(plain, &di); err != nil {
		return state.DeviceInfo{}, "", errors.New("not a JSON object {\"DV\", \"DD\": {\"C001\": platform, ...}, \"DPNA\", \"SW\"}")
	}
	if di.DD == nil {
		return state.DeviceInfo{}, "", errors.New(`it has no "DD" object of device data`)
	}
	text := func(key string) string {
		s, _ := di.DD[key].(string)
		return cut(s, maxDeviceValue)
	}
	device := state.DeviceInfo{Platform: text("C001"), Model: text("C002"), OSName: text("C003"), OSVersion: text("C004"),
		Locale: strings.ReplaceAll(text("C005"), "_", "-"), TimeZone: text("C006")}
	masked := make(map[string]any, len(di.DD))
	for k, v := range di.DD {
		if len(masked) == maxDeviceMembers {
			break
		}
		s, isText := v.(string)
		switch {
		case !deviceKept[k]:
			masked[cut(k, 8)] = "(masked)"
		case isText:
			masked[k] = cut(s, maxDeviceValue)
		default:
			masked[k] = "(not text)"
		}
	}
	out := map[string]any{"DV": cut(di.DV, 16), "DD": masked}
	if len(di.SW) > 0 {
		sw := di.SW[:min(len(di.SW), 16)]
		for i := range sw {
			sw[i] = cut(sw[i], 8)
		}
		out["SW"] = sw
	}
	b, err := json.Marshal(out)
	if err != nil {
		return state.DeviceInfo{}, "", fmt.Errorf("device information: %w", err)
	}
	return device, string(b), nil
}

// cut is s within n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return strings.Clone(s[:n])
}

// platformOf is when's platform of a device's C001.
func platformOf(c001 string) string {
	switch {
	case strings.EqualFold(c001, scenarios.PlatformAndroid):
		return scenarios.PlatformAndroid
	case strings.EqualFold(c001, scenarios.PlatformIOS):
		return scenarios.PlatformIOS
	}
	return scenarios.PlatformOther
}

// appTransaction fills the app channel's part of t, a new transaction
// of an app lookup answered by sc: the SDK's ids and device, and on a
// challenge how it renders and the exchange key, sealed. It returns the
// answer's acsRenderingType and acsSignedContent (nil and "" without a
// challenge). A challenge the SDK cannot render ends N, reason 03.
func (e *Engine) appTransaction(t *state.Transaction, req *message.AppRequest, sc *scenarios.Scenario, app appLookup) (*message.RenderingType, string, error) {
	t.App = state.AppState{
		SDKTransID:         strings.Clone(req.SDKTransID),
		SDKAppID:           strings.Clone(req.SDKAppID),
		SDKReferenceNumber: strings.Clone(req.SDKReferenceNumber),
		MaxTimeout:         req.SDKMaxTimeout,
		Device:             app.device,
	}
	if t.Status != "C" {
		return nil, "", nil
	}
	// The device's locale (C005) chooses the language as a browser's
	// does; the SDK's screen is the whole window.
	t.Challenge.Language, t.Challenge.WindowSize = app.device.Locale, 5
	iface, ui, ok := renderingOf(sc.Challenge, req.RenderOptions)
	if !ok {
		finish(t, "N", "03", "", "")
		return nil, "", nil
	}
	t.App.Interface, t.App.UIType = iface, ui
	signer := app.server.ACS
	if sc.Challenge.AppFault == scenarios.AppFaultRogueSignature {
		signer = e.Directory().Rogue() // a chain the SDK's roots do not anchor
	}
	signed, key, err := e.signedContent(req, signer)
	if err != nil {
		return nil, "", fmt.Errorf("app lookup: %w", err)
	}
	if t.App.SealedKey, err = e.seal.Seal(key, t.ACSTransID); err != nil {
		return nil, "", err
	}
	return &message.RenderingType{Interface: iface, UITemplate: ui}, signed, nil
}

// renderingOf is how challenge ch shows to an SDK that renders opts: the
// style's native UI type (01 interface), or HTML (02 interface, UI type
// 05) when the scenario says so or, as a fallback, when the SDK cannot
// show the native one but takes HTML; ok is false when it takes neither.
func renderingOf(ch *scenarios.Challenge, opts message.DeviceRenderOptions) (iface, ui string, ok bool) {
	iface, ui = "01", ch.ACSUIType()
	if ui == scenarios.ACSUIHTML {
		iface = "02"
	}
	if opts.Allows(iface, ui) {
		return iface, ui, true
	}
	if opts.Allows("02", scenarios.ACSUIHTML) {
		return "02", scenarios.ACSUIHTML, true
	}
	return "", "", false
}

// signedContent makes the ACS's answer to the SDK: a fresh ephemeral
// key, the exchange key it agrees with the SDK's (the Concat KDF with the
// sdkReferenceNumber as PartyVInfo), and acsSignedContent, a JWS signed
// by signer with its chain in x5c whose payload is the ACS's URL, its
// ephemeral public key and the SDK's as sent. The ephemeral private key
// is dropped here: the exchange key is all the ACS needs later.
func (e *Engine) signedContent(req *message.AppRequest, signer directory.Signer) (string, []byte, error) {
	jwk, err := jose.ParseJWK([]byte(req.SDKEphemPubKey))
	if err != nil {
		return "", nil, fmt.Errorf("sdkEphemPubKey: %w", err)
	}
	sdkPub, err := jwk.ECPublicKey()
	if err != nil {
		return "", nil, fmt.Errorf("sdkEphemPubKey: %w", err)
	}
	acsKey, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, fmt.Errorf("the ACS's ephemeral key: %w", err)
	}
	key, err := jose.DeriveKey(acsKey, sdkPub, req.SDKReferenceNumber)
	if err != nil {
		return "", nil, fmt.Errorf("the exchange key: %w", err)
	}
	payload, err := json.Marshal(struct {
		ACSURL         string          `json:"acsURL"`
		ACSEphemPubKey jose.JWK        `json:"acsEphemPubKey"`
		SDKEphemPubKey json.RawMessage `json:"sdkEphemPubKey"`
	}{e.urls.ACSSDK(), jose.ECPublicJWK(acsKey.PublicKey()), json.RawMessage(req.SDKEphemPubKey)})
	if err != nil {
		return "", nil, fmt.Errorf("acsSignedContent: %w", err)
	}
	jws, err := jose.SignJWS(payload, signer.Key, signer.Chain)
	if err != nil {
		return "", nil, fmt.Errorf("acsSignedContent: %w", err)
	}
	return string(jws), key, nil
}

// appDetail says in words, for the lookup event, what the app lookup's
// SDK sent and how the challenge renders.
func appDetail(req *message.AppRequest, app appLookup, t state.Transaction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "app lookup, sdkTransId %s, SDK %s; sdkEncData decrypted with directory server %s (key %s); device information %s",
		t.App.SDKTransID, t.App.SDKReferenceNumber, app.server.ID, app.server.Key.Kid, app.masked)
	switch {
	case t.App.UIType != "":
		fmt.Fprintf(&b, "; challenge as acsUiType %s on acsInterface %s", t.App.UIType, t.App.Interface)
	case t.StatusReason == "03" && t.Status == "N":
		fmt.Fprintf(&b, "; the SDK renders none of the challenge's forms (deviceRenderOptions sdkInterface %s, sdkUiType %s): N, reason 03",
			req.RenderOptions.Interface, strings.Join(req.RenderOptions.UITypes, ","))
	}
	return b.String()
}
