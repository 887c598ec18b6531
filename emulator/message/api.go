package message

// This file holds the typed messages of the interface: the lookup request
// (spec 2.2-2.12) after decoding and validation, and the lookup and enquiry
// responses (2.13, 2.15). Field names follow the spec; JSON names are the
// spec's spellings.

// LookupRequest is a validated authentication request (spec 2.2) of the
// browser channel (deviceChannel 2) or of the 3RI channel (deviceChannel
// 3), which has no browser and no device data collection (DDCID,
// ThreeDSCompInd, Browser, NotificationURL and ChallengeWindowSize stay
// zero), no Purchase, Recurring or InstalmentData, and a ThreeRIInd.
// Optional fields that were absent hold their zero value; the defaults
// the spec gives (challengeWindowSize 3, threeDsRequestorChallengeInd 1,
// threeDSRequestorDecMaxTime 15) are already applied.
type LookupRequest struct {
	ExternalReferenceID string
	DDCID               string
	// ThreeDSCompInd is threeDSCompInd as the 3DS Requestor sent it (Y, N
	// or U); "" when absent.
	ThreeDSCompInd               string
	ThreeDSRequestorAuthInd      string // "01".."06"
	Session                      string
	Browser                      BrowserInfo
	NotificationURL              string // absolute http(s) URL, or "" when null/absent
	ChallengeWindowSize          int    // 1..5
	AcquirerCode                 string
	AcquirerBIN                  string
	MerchantCode                 string
	DeviceChannel                int    // 2 (browser) or 3 (3RI) after validation
	MessageCategory              string // "01" or "02"
	ThreeDSRequestorChallengeInd int    // 1..4
	MessageVersion               string // "2.1.0" or "2.2.0"; "" when absent
	RequestFeatures              int    // 0..99; -1 when absent
	ThreeDSRequestorDecMaxTime   int    // 1..10080
	Card                         Card
	MerchantName                 string
	Purchase                     *Purchase
	Recurring                    *Recurring
	InstalmentData               int // 0 when absent
	Requestor                    *Requestor
	BillingAddress               *Address
	ShippingAddress              *Address
	Email                        string
	HomePhone                    *Phone
	MobilePhone                  *Phone
	WorkPhone                    *Phone
	AccountInfo                  *AccountInfo
	AdditionalAccountInfo        *AdditionalAccountInfo
	MerchantRiskInfo             *MerchantRiskIndicator
	// ThreeRIInd is threeRIInd, the reason of a 3RI authentication (01
	// recurring ... 11 other payment); "" on the browser channel.
	ThreeRIInd string
	// PriorAuth is threeDsRequestorPriorAuthenticationInfo of a 3RI
	// lookup; nil when absent.
	PriorAuth *PriorAuthInfo
	// App holds the 3DS SDK's fields of an app lookup (deviceChannel 1);
	// nil on the other channels.
	App *AppRequest
}

// AppRequest is what an app lookup (deviceChannel 1, POST
// {base}/authentication/app) adds to the lookup: the fields the app's 3DS
// SDK made and those the merchant adds for it.
type AppRequest struct {
	SDKAppID           string // UUID: the app's installation
	SDKTransID         string // UUID: the SDK's id of the transaction
	SDKReferenceNumber string // 1-32 characters; PartyVInfo of the exchange key
	// SDKEphemPubKey is the SDK's ephemeral public key: the JSON of a
	// P-256 JWK object as sent (the string's content when it came as a
	// string holding the JSON).
	SDKEphemPubKey string
	// SDKEncData is the device information encrypted to the directory
	// server's key: a compact JWE, at most MaxSDKEncData bytes.
	SDKEncData string
	// SDKMaxTimeout is sdkMaxTimeout in minutes, at least 5.
	SDKMaxTimeout int
	// RenderOptions is deviceRenderOptions: what the SDK can show.
	RenderOptions DeviceRenderOptions
}

// MaxSDKEncData bounds sdkEncData, in bytes.
const MaxSDKEncData = 64 << 10

// DeviceRenderOptions is an app lookup's deviceRenderOptions.
type DeviceRenderOptions struct {
	// Interface is sdkInterface: 01 native, 02 HTML, 03 both.
	Interface string
	// UITypes is sdkUiType: the UI types the SDK shows, each of 01 text,
	// 02 single select, 03 multi select, 04 OOB, 05 HTML, once.
	UITypes []string
}

// Allows tells whether the SDK renders acsUiType ui on acsInterface
// iface (01 native, 02 HTML).
func (o DeviceRenderOptions) Allows(iface, ui string) bool {
	if o.Interface != "03" && o.Interface != iface {
		return false
	}
	for _, u := range o.UITypes {
		if u == ui {
			return true
		}
	}
	return false
}

// PriorAuthInfo is the earlier authentication a 3RI lookup relies on
// (EMV threeDSRequestorPriorAuthenticationInfo).
type PriorAuthInfo struct {
	// Ref names the earlier transaction: its acsTransId (EMV) or, in the
	// sandbox, its threeDsServerTransId; 36 characters.
	Ref string
	// Method is how the cardholder was authenticated then: 01
	// frictionless, 02 challenge, 03 AVS verified, 04 other issuer
	// methods; "" when absent.
	Method string
	// Timestamp is when, yyyyMMddHHmm in UTC; "" when absent.
	Timestamp string
	// Data is data of the earlier authentication, at most 2048
	// characters; "" when absent.
	Data string
}

// BrowserInfo is the cardholder's browser (spec 2.3).
type BrowserInfo struct {
	AcceptHeader      string
	IP                string
	JavascriptEnabled bool
	JavaEnabled       bool
	Language          string
	ColorDepth        string
	ScreenHeight      string
	ScreenWidth       string
	TimeZone          string // as sent; a JSON number is kept in its decimal text
	UserAgent         string
}

// Card is the account being authenticated (spec 2.4).
type Card struct {
	ExpiryDate     string // YYMM
	CardNumber     string // 13-19 digits
	CardholderName string
}

// Requestor describes the 3DS Requestor (spec 2.5).
type Requestor struct {
	ID                  string
	Name                string
	URL                 string
	CardholderAccountID string
}

// Address is a billing or shipping address (spec 2.6).
type Address struct {
	CountryCode string // ISO 3166-1 alpha-3
	City        string
	PostCode    string
	Line1       string
	Line2       string
	Line3       string
	State       string
}

// Purchase is the purchase being authenticated (spec 2.7).
type Purchase struct {
	Date         string // yyyy-MM-dd HH:mm:ss, UTC
	InstalData   int    // 0 when absent
	Amount       string // decimal text as sent, e.g. "10.99"
	CurrencyCode string // ISO 4217 alphabetic or numeric, as sent
}

// Recurring describes a recurring authentication (spec 2.8).
type Recurring struct {
	Expiry    string // YYYYMMDD
	Frequency int    // 1..9999; 0 when absent
}

// Phone is a cardholder phone number (spec 2.9).
type Phone struct {
	CountryCode string
	Subscriber  string
}

// AccountInfo is the cardholder account information (spec 2.10), under the
// table's short names.
type AccountInfo struct {
	ChAccAgeInd           string
	ChAccChange           string
	ChAccChangeInd        string
	ChAccDate             string
	ChAccPwChange         string
	ChAccPwChangeInd      string
	NbPurchaseAccount     string
	ProvisionAttemptsDay  string
	TxnActivityDay        string
	TxnActivityYear       string
	PaymentAccAge         string
	PaymentAccInd         string
	ShipAddressUsage      string
	ShipAddressUsageInd   string
	ShipNameIndicator     string
	SuspiciousAccActivity string
}

// AdditionalAccountInfo is spec 2.11.
type AdditionalAccountInfo struct {
	AccountType             int // 0 when absent
	AuthenticationMethod    int // 0 when absent
	AuthenticationTimeStamp string
}

// MerchantRiskIndicator is spec 2.12.
type MerchantRiskIndicator struct {
	DeliveryEmailAddress string
	DeliveryTimeframe    string
	GiftCardAmount       string
	GiftCardCount        string
	GiftCardCurr         string
	PreOrderDate         string
	PreOrderPurchaseInd  string
	ReorderItemsInd      string
	ShipIndicator        string
}

// EnquiryRequest asks for the result of one transaction (spec 2.14). When
// both fields are set, ThreeDSServerTransID wins.
type EnquiryRequest struct {
	ThreeDSServerTransID string
	ExternalReferenceID  string
}

// LookupResponse is the success body of a lookup (spec 2.13), but for
// challengeHtml: the engine answers a challenge as data (Challenge), and
// the transport renders challengeHtml from it when it writes the body.
type LookupResponse struct {
	Status string `json:"status"`
	// Challenge is the challenge indication of a status C answer; nil
	// otherwise. It is not a member of the body.
	Challenge *ChallengeIndication `json:"-"`
	// ScenarioID is the scenario that answered, and Fallback whether it
	// was the catalogue's fallback (no scenario matched the card). Not
	// members of the body.
	ScenarioID           string `json:"-"`
	Fallback             bool   `json:"-"`
	HostedChallengeURL   string `json:"hostedChallengeUrl,omitempty"`
	Version              string `json:"version"`
	DSTransID            string `json:"dsTransId"`
	ACSTransID           string `json:"acsTransId"`
	ThreeDSServerTransID string `json:"threeDsServerTransId"`
	AuthenticationValue  string `json:"authenticationValue,omitempty"`
	ECI                  string `json:"eci,omitempty"`
	CardScheme           string `json:"cardScheme"`
	CardBIN              string `json:"cardBin"`
	ExternalReferenceID  string `json:"externalReferenceId"`
	StatusReason         string `json:"statusReason,omitempty"`
	ACSReferenceNumber   string `json:"acsReferenceNumber"`
	ACSOperatorID        string `json:"acsOperatorId"`
	AuthenticationType   string `json:"authenticationType,omitempty"`
	WhiteListStatus      string `json:"whiteListStatus,omitempty"`
	WhiteListStatusSrc   string `json:"whiteListStatusSource,omitempty"`
	// SDKTransID, ACSRenderingType and ACSSignedContent answer an app
	// lookup (deviceChannel 1): the SDK's transaction id, and on a
	// challenge how it renders and the ACS's signed content.
	SDKTransID       string         `json:"sdkTransId,omitempty"`
	ACSRenderingType *RenderingType `json:"acsRenderingType,omitempty"`
	ACSSignedContent string         `json:"acsSignedContent,omitempty"`
}

// RenderingType is acsRenderingType of an app challenge: the interface
// (01 native, 02 HTML) and the UI template (acsUiType 01-05).
type RenderingType struct {
	Interface  string `json:"acsInterface"`
	UITemplate string `json:"acsUiTemplate"`
}

// EnquiryResponse is the success body of an enquiry (spec 2.15), with both
// names of the duplicated identifiers.
type EnquiryResponse struct {
	ThreeDSServerTransID       string `json:"threeDsServerTransId"`
	DSTransID                  string `json:"dsTransId"`
	ACSTransactionID           string `json:"acsTransactionId"`
	AuthenticationValue        string `json:"authenticationValue,omitempty"`
	TransactionStatus          string `json:"transactionStatus"`
	ECI                        string `json:"eci,omitempty"`
	Version                    string `json:"version"`
	CardScheme                 string `json:"cardScheme"`
	CardBIN                    string `json:"cardBin"`
	DSTransactionID            string `json:"dsTransactionId"`
	ThreeDSServerTransactionID string `json:"threeDSServerTransactionId"`
	ChallengeCancel            string `json:"challengeCancel,omitempty"`
	StatusReason               string `json:"statusReason,omitempty"`
	WhiteListStatus            string `json:"whiteListStatus,omitempty"`
	WhiteListStatusSource      string `json:"whiteListStatusSource,omitempty"`
	AuthenticationType         string `json:"authenticationType,omitempty"`
	ExternalReferenceID        string `json:"externalReferenceId"`
	ReasonCode                 string `json:"reasonCode,omitempty"`
	ReasonDesc                 string `json:"reasonDesc,omitempty"`
	ACSReferenceNumber         string `json:"acsReferenceNumber"`
	ACSOperatorID              string `json:"acsOperatorId"`
	InteractionCounter         string `json:"interactionCounter,omitempty"`
	// DDCID, ThreeDSCompInd and ThreeDSMethod describe the device data
	// collection before the lookup; absent when there was none.
	DDCID          string          `json:"ddcId,omitempty"`
	ThreeDSCompInd string          `json:"threeDSCompInd,omitempty"`
	ThreeDSMethod  *MethodTimeline `json:"threeDSMethod,omitempty"`
	// SDKTransID is the SDK's transaction id of an app lookup; absent
	// on the other channels.
	SDKTransID string `json:"sdkTransId,omitempty"`
}

// MethodTimeline is the 3DS Method of a transaction as the enquiry shows
// it; times are RFC 3339 in UTC with milliseconds, empty when not reached.
type MethodTimeline struct {
	Available        bool   `json:"available"`
	RequestedAt      string `json:"requestedAt,omitempty"`
	StartedAt        string `json:"startedAt,omitempty"`
	CompletedAt      string `json:"completedAt,omitempty"`
	RequestorCompInd string `json:"requestorCompInd,omitempty"`
}

// DDCRequest is a validated device data collection request
// (POST {base}/authentication/ddc).
type DDCRequest struct {
	Card                Card
	NotificationURL     string // threeDSMethodNotificationURL, absolute http(s)
	ExternalReferenceID string
	// DDCID is the ddcId the merchant chose (ValidDDCID); empty: the
	// sandbox makes one.
	DDCID string
}

// DDCResponse answers a device data collection request.
type DDCResponse struct {
	DDCID                string `json:"ddcId"`
	ThreeDSServerTransID string `json:"threeDsServerTransId"`
	ExternalReferenceID  string `json:"externalReferenceId,omitempty"`
	// MethodURL is the ACS's 3DS Method URL; empty when the card's ACS has
	// none, and the Requestor then sends threeDSCompInd U.
	MethodURL string `json:"threeDSMethodUrl,omitempty"`
	// MethodData is threeDSMethodData, to be posted to MethodURL.
	MethodData string `json:"threeDSMethodData,omitempty"`
	// CompIndHint is the threeDSCompInd to send when the method cannot
	// run: U without a method URL; "" (absent) when a method runs, whose
	// outcome decides Y or N.
	CompIndHint string `json:"threeDSCompInd,omitempty"`
	// ScenarioID is the scenario that answered; not a member of the body.
	ScenarioID string `json:"-"`
}
