package templates

// The names of the console's pages, each with its view struct.
const (
	PageConsoleCards        = "console-cards"        // view ConsoleCards
	PageConsoleTransactions = "console-transactions" // view ConsoleTransactions
	PageConsoleTransaction  = "console-transaction"  // view ConsoleTransaction
	PageConsoleLogin        = "console-login"        // view ConsoleLogin
	PageConsoleDemo         = "console-demo"         // view ConsoleDemo
	PageConsoleNotify       = "console-notify"       // view ConsoleNotify
	PageConsoleMessage      = "console-message"      // view ConsoleMessage
)

// ConsoleLayout is what every console page shares: the frame, the
// navigation and the session.
type ConsoleLayout struct {
	// Nonce is the CSP nonce of the page's style and script elements.
	Nonce string
	// Base is the path prefix of the console's links, e.g. "/3ds"; empty
	// at the root.
	Base string
	// Title is the document title and main heading.
	Title string
	// Active names the navigation entry of the page: "cards",
	// "transactions", "demo" or "login".
	Active string
	// LoggedIn tells whether a token session is open.
	LoggedIn bool
	// Namespace is the session's namespace (a hash of the token, never the
	// token itself); shown so testers can tell sessions apart.
	Namespace string
}

// ConsoleCards is the view of the test cards page: the active scenario
// catalogue grouped by scheme and flow.
type ConsoleCards struct {
	ConsoleLayout
	// Query is the text filter (the GET parameter q).
	Query string
	// Scheme and Outcome are the scheme and outcome filters (GET
	// parameters scheme and outcome); empty shows all.
	Scheme, Outcome string
	// Schemes and Outcomes are the choices of those filters.
	Schemes, Outcomes []string
	// Groups are the cards that pass the filter, by scheme and flow.
	Groups []CardGroup
	// Total and Shown count the scenarios, all and filtered.
	Total, Shown int
	// Conditional counts the cards whose outcome depends on another field
	// of the request as well; their rows carry a Condition.
	Conditional int
}

// CardGroup is one pack, scheme and flow of the catalogue.
type CardGroup struct {
	// Pack is the scenario pack, e.g. "defaults"; PackTitle its heading.
	Pack, PackTitle string
	// Scheme is the card scheme, e.g. "VISA"; "Other rules" for
	// scenarios without a card number of their own.
	Scheme string
	// Flow is frictionless, challenge or error.
	Flow string
	// Cards are the scenarios of the group.
	Cards []CardRow
}

// CardRow is one scenario of the catalogue.
type CardRow struct {
	// ID is the scenario id.
	ID string
	// Number is the magic card number; empty for prefix rules.
	Number string
	// Match describes how a prefix or fallback rule matches, when there
	// is no card number.
	Match string
	// Status is the lookup status (C for challenges).
	Status string
	// StatusText is the meaning of Status.
	StatusText string
	// Reason is the transStatusReason code; ReasonText its meaning.
	Reason, ReasonText string
	// ECI is the ECI of the outcome; empty when absent.
	ECI string
	// Version is the protocol version of the outcome.
	Version string
	// ThreeRI is what the card answers on the 3RI channel: its status
	// and reason ("U 21"), "error" for an error card, empty when the
	// scenario does not answer 3RI lookups; ThreeRIText says it in words.
	ThreeRI, ThreeRIText string
	// Error is the errorCode and EMV code of an error scenario, e.g.
	// "SC03 / EMV 403 / HTTP 503".
	Error string
	// Auto says how a challenge resolves itself ("pass", "fail",
	// "cancel"); empty when the cardholder decides.
	Auto string
	// Description says what happens, in words.
	Description string
	// Scheme is the card scheme; empty without a card number.
	Scheme string
	// Outcome is what the scheme and outcome filter matches: the status
	// of a frictionless card, else "challenge" or "error".
	Outcome string
	// Condition says how the outcome of the card depends on another field
	// of the request: "with threeDsRequestorChallengeInd 2" on the row
	// that needs it, "unless threeDsRequestorChallengeInd 2" on the card's
	// other rows; empty when the card number alone decides.
	Condition string
	// Search is the lowercase text the filter matches against.
	Search string
}

// ConsoleTransactions is the view of the transactions page: the journal
// of the session's namespace, newest first.
type ConsoleTransactions struct {
	ConsoleLayout
	// Rows are the transactions, newest first.
	Rows []TransactionRow
	// Version is the journal version the rows were read at.
	Version uint64
	// Limit is the most rows shown.
	Limit int
	// JournalOff tells that the emulator runs without a journal.
	JournalOff bool
}

// TransactionRow is one transaction of the journal listing.
type TransactionRow struct {
	// ID is the threeDSServerTransID; Href the link to its detail page.
	ID, Href string
	// Created and Updated are times as displayed (UTC).
	Created, Updated string
	// Status is the current transaction status; StatusText its meaning.
	Status, StatusText string
	// LookupStatus is what the lookup answered, e.g. "C".
	LookupStatus string
	// Channel is the lookup's device channel as the console names it
	// ("Browser", "3RI", "App"); ChannelDetail says more of a 3RI lookup, e.g.
	// "threeRIInd 01, recurring transaction".
	Channel, ChannelDetail string
	// LastEvent is the kind of the latest event.
	LastEvent string
	// MaskedPAN is the masked card number; Scheme the card scheme.
	MaskedPAN, Scheme string
	// MerchantName and CardholderName come from the lookup.
	MerchantName, CardholderName string
	// Amount is the purchase amount with its currency, e.g. "49.99 EUR".
	Amount string
	// ExternalReferenceID is the Requestor's reference.
	ExternalReferenceID string
	// ECI is the latest ECI answered; empty when none.
	ECI string
	// Scenario is the id of the scenario that answered the lookup, as the
	// X-Scenario-Id header named it ("fallback" when no scenario matched).
	Scenario string
	// Events counts the events of the transaction.
	Events int
}

// ConsoleTransaction is the view of one transaction's detail page.
type ConsoleTransaction struct {
	ConsoleLayout
	// Row is the transaction's summary.
	Row TransactionRow
	// Events are its events, oldest first.
	Events []TransactionEvent
	// Dropped counts events dropped to bound the history.
	Dropped int
	// ListHref links back to the listing.
	ListHref string
	// CodesSent are the one-time codes "sent" to the cardholder's phone
	// (an otp challenge), oldest first: a phone's inbox for demos.
	CodesSent []SentCode
	// AppHref links the banking app page of an oob challenge; empty for
	// other transactions.
	AppHref string
}

// SentCode is one text message of the phone's inbox.
type SentCode struct {
	// Time is when it was sent, as displayed; Text what it says.
	Time, Text string
}

// TransactionEvent is one event of a transaction's history.
type TransactionEvent struct {
	// Kind is the event kind (lookup, creq, attempt, decision, auto,
	// timeout, cres, enquiry, error); Label says it in words.
	Kind, Label string
	// Time is the event time as displayed (UTC, milliseconds).
	Time string
	// SincePrevious and SinceStart are the durations as displayed.
	SincePrevious, SinceStart string
	// Status is the transaction status after the event.
	Status string
	// Detail says more in words.
	Detail string
	// Request and Response are the pretty-printed JSON bodies of API
	// events, card numbers masked; empty for the others.
	Request, Response string
	// ResponseFull, when set, is Response with the lookup's challengeHtml
	// in full, which Response abbreviates.
	ResponseFull string
}

// ConsoleLogin is the view of the login page, where the tester types the
// bearer token whose transactions the console shows.
type ConsoleLogin struct {
	ConsoleLayout
	// Error says why the last attempt failed.
	Error string
	// TokensRequired tells that only configured tokens are accepted.
	TokensRequired bool
	// Next is the console path to go to after login.
	Next string
}

// ConsoleDemo is the view of the demo checkout: a merchant page that runs
// the lookup, the challenge and the enquiry in the browser.
type ConsoleDemo struct {
	ConsoleLayout
	// Cards are the test cards to choose from, by scheme.
	Cards []DemoCardGroup
	// Selected is the card number chosen first.
	Selected string
	// Config is what the page's script needs (API paths, token,
	// merchant settings), rendered as JSON in the page.
	Config DemoConfig
	// NeedsLogin tells that no session is open and the demo token is not
	// accepted: the demo cannot run.
	NeedsLogin bool
	// DemoToken tells that the demo runs with the fixed demo token (no
	// session is open).
	DemoToken bool
	// Languages are the cardholder pages' languages the lookup may ask
	// for (browserInfo.language); Language is the one chosen first, ""
	// for the browser's own.
	Languages []Lang
	Language  Lang
	// App chooses the app channel first (?channel=app): the purchase runs
	// as an app's, its challenge drawn as a phone's native screens.
	App bool
}

// DemoCardGroup is the test cards of one scheme in the demo's picker.
type DemoCardGroup struct {
	Scheme string
	Cards  []DemoCard
}

// DemoCard is one card of the demo's picker.
type DemoCard struct {
	// Number is the card number; Label describes it in the picker.
	Number, Label string
}

// DemoConfig is the demo page's script configuration.
type DemoConfig struct {
	// LookupURL and EnquiryURL are the console's relays of the API
	// operations, which call them with the session's token: the page
	// never holds a token. NotifyURL receives the final CRes.
	LookupURL  string `json:"lookupUrl"`
	EnquiryURL string `json:"enquiryUrl"`
	NotifyURL  string `json:"notifyUrl"`
	// DDCJWTURL makes the JWT of a device data capture on the console's
	// server; DDCCallbackURL is the capture's callbackUrl, which tells the
	// page the capture's outcome.
	DDCJWTURL      string `json:"ddcJwtUrl"`
	DDCCallbackURL string `json:"ddcCallbackUrl"`
	// JournalURL is the path of the transaction pages, the id appended.
	JournalURL string `json:"journalUrl"`
	// AppLookupURL and AppCReqURL serve the app view: the console's
	// server sends the app lookup and each CReq as a merchant's backend
	// and an app's 3DS SDK do, and answers the CRes decrypted.
	AppLookupURL string `json:"appLookupUrl"`
	AppCReqURL   string `json:"appCreqUrl"`
	// AcceptHeader and IP are what the merchant's server saw of the
	// browser; the script reads the rest of browserInfo itself.
	AcceptHeader string `json:"acceptHeader"`
	IP           string `json:"ip,omitempty"`
	// NextSteps says what the merchant does for each status; "{eci}"
	// stands for the ECI.
	NextSteps map[string]string `json:"nextSteps"`
	// StatusText describes each status.
	StatusText map[string]string `json:"statusText"`
	// CancelText is the result's headline for each challengeCancel code,
	// which wins over StatusText.
	CancelText map[string]string `json:"cancelText"`
}

// ConsoleNotify is the view of the demo's notification page: it receives
// the final CRes in the challenge iframe and hands it to the demo page.
type ConsoleNotify struct {
	// Nonce is the CSP nonce.
	Nonce string
	// Base is the path prefix of links.
	Base string
	// TransStatus and ThreeDSServerTransID come from the decoded CRes.
	TransStatus, ThreeDSServerTransID string
	// CRes is the Base64Url CRes as posted; Session the threeDSSessionData.
	CRes, Session string
	// DDC makes the page the device data capture's callbackUrl instead:
	// it hands the capture's outcome (DDCID, DDCStatus, CompInd,
	// ThreeDSServerTransID, or ErrorCode and DDCError) to the demo page.
	DDC                                            bool
	DDCID, DDCStatus, CompInd, ErrorCode, DDCError string
	// Error says why the CRes could not be read.
	Error string
}

// ConsoleMessage is the view of a console page that only says something,
// e.g. a transaction that is not found.
type ConsoleMessage struct {
	ConsoleLayout
	// Message says what happened; Link and LinkText offer a way on.
	Message, Link, LinkText string
}

// PageLanding is the front door at {base}/: view Landing.
const PageLanding = "landing"

// Landing is the view of the front door: where to go first, and the
// test cards by pack.
type Landing struct {
	// Nonce is the CSP nonce of the page's style element.
	Nonce string
	// Base is the path prefix of links; PublicURL the emulator's base URL
	// as browsers reach it, shown in the example command.
	Base, PublicURL string
	// Links are the places to go, in order.
	Links []LandingLink
	// Docs are the pages of the documentation the sandbox serves, the
	// index first.
	Docs []LandingLink
	// Packs are the test cards, by pack, the sandbox's own first.
	Packs []LandingPack
	// Conditional counts the cards whose outcome depends on another field
	// of the request as well; their rows carry a Condition.
	Conditional int
}

// LandingLink is one place the front door leads to.
type LandingLink struct {
	// Name is the link text; Href its target; About says what is there.
	Name, Href, About string
}

// LandingPack is one pack of test cards on the front door.
type LandingPack struct {
	// Pack is the pack's name; Title its heading.
	Pack, Title string
	// Cards counts the pack's scenarios.
	Cards int
	// Groups are the pack's cards by scheme and flow.
	Groups []CardGroup
}
