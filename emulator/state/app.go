package state

// AppState is what an app-channel transaction (ChannelApp) keeps between
// the lookup and the last CReq: the SDK's ids, the key the ACS and the
// SDK share (sealed), the counters of the exchange and what the SDK can
// render. It is zero for every other channel, and a zero AppState costs
// a record nothing.
type AppState struct {
	// SDKTransID, SDKAppID and SDKReferenceNumber are the lookup's
	// sdkTransId, sdkAppId and sdkReferenceNumber. Every CReq must carry
	// the same sdkTransID.
	SDKTransID         string
	SDKAppID           string
	SDKReferenceNumber string
	// SealedKey is the exchange key of the CReq/CRes JWEs (ECDH P-256 of
	// the ACS's ephemeral key and the SDK's, Concat KDF), sealed with
	// AES-GCM under the engine's app key, so that the store never holds
	// it in clear and any replica opens it (raw bytes). Empty when the lookup did not
	// challenge.
	SealedKey string
	// Enc is the content encryption of the exchange (A128CBC-HS256 or
	// A128GCM), as the first CReq chose it; "" before the first CReq.
	Enc string
	// Counter is how many CReqs the ACS has accepted: the next CReq must
	// carry sdkCounterStoA Counter (three digits), and the CRes to CReq n
	// carries acsCounterAtoS n.
	Counter int
	// UIType is the acsUiType the challenge renders (01 text, 02 single
	// select, 03 multi select, 04 OOB, 05 HTML); Interface is the
	// acsInterface (01 native, 02 HTML).
	UIType    string
	Interface string
	// MaxTimeout is the lookup's sdkMaxTimeout in minutes.
	MaxTimeout int
	// Device is what the SDK's sdkEncData said of the device.
	Device DeviceInfo
	// SDKError is the errorCode of an Erro the SDK posted, which ended
	// the transaction; "" when none did.
	SDKError string
}

// DeviceInfo is the part of the EMV device information (the plaintext
// of sdkEncData) a transaction keeps: nothing that names the cardholder.
type DeviceInfo struct {
	Platform  string // C001, e.g. Android or iOS
	Model     string // C002
	OSName    string // C003
	OSVersion string // C004
	Locale    string // C005, e.g. en-US: chooses the challenge's language
	TimeZone  string // C006
}

// IsZero tells whether a holds nothing: the transaction is not the app
// channel's.
func (a *AppState) IsZero() bool { return *a == AppState{} }
