package state

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Phase is where a transaction stands in its life.
type Phase uint8

// The phases of a transaction. Frictionless transactions are born Final;
// challenge transactions move ChallengePending -> ChallengeOpened -> Final.
const (
	// PhaseFinal: the result will not change any more.
	PhaseFinal Phase = iota
	// PhaseChallengePending: status C, the first CReq has not arrived yet.
	PhaseChallengePending
	// PhaseChallengeOpened: the CReq arrived and the challenge page is shown.
	PhaseChallengeOpened
	// PhaseMethod: a device data collection (POST /authentication/ddc, or
	// the browser's capture at /V2/ddcCollect) waiting for its lookup; the
	// record is stored under DDCPrefix and the threeDSServerTransID its
	// lookup will carry.
	PhaseMethod
)

func (p Phase) String() string {
	switch p {
	case PhaseChallengePending:
		return "challenge-pending"
	case PhaseChallengeOpened:
		return "challenge-opened"
	case PhaseMethod:
		return "method"
	default:
		return "final"
	}
}

// Channel is the device channel of a transaction: how the 3DS Requestor
// reached the sandbox. Its zero value is the browser, so that a record
// written before channels existed reads as one.
type Channel uint8

// The device channels. Their numbers are the transaction record's, not
// the interface's deviceChannel (DeviceChannel gives that).
const (
	ChannelBrowser Channel = iota // deviceChannel 2, POST {base}/authentication/brw
	Channel3RI                    // deviceChannel 3, POST {base}/authentication/3ri
	ChannelApp                    // deviceChannel 1, the app channel
)

// channelNames are the channels' names, in the order of their numbers:
// the scenario key when's channel, the journal and the console use them.
var channelNames = [...]string{ChannelBrowser: scenarios.ChannelBrowser, Channel3RI: scenarios.Channel3RI, ChannelApp: scenarios.ChannelApp}

// String is the channel's name: browser, 3ri or app.
func (c Channel) String() string {
	if int(c) < len(channelNames) {
		return channelNames[c]
	}
	return "channel-" + strconv.Itoa(int(c))
}

// Valid tells whether c is one of the channels.
func (c Channel) Valid() bool { return int(c) < len(channelNames) }

// DeviceChannel is the interface's deviceChannel of c: 1 app, 2 browser,
// 3 3RI.
func (c Channel) DeviceChannel() int {
	switch c {
	case ChannelApp:
		return 1
	case Channel3RI:
		return 3
	}
	return 2
}

// ChannelOf is the channel of the interface's deviceChannel n, and
// whether n names one.
func ChannelOf(n int) (Channel, bool) {
	switch n {
	case 1:
		return ChannelApp, true
	case 2:
		return ChannelBrowser, true
	case 3:
		return Channel3RI, true
	}
	return ChannelBrowser, false
}

// ParseChannel is the channel named s (String), and whether s names one.
func ParseChannel(s string) (Channel, bool) {
	for c, name := range channelNames {
		if name == s {
			return Channel(c), true
		}
	}
	return ChannelBrowser, false
}

// Transaction is one authentication as the engine stores it. It is a value:
// stores hand out copies, and changes go through Store.Update.
type Transaction struct {
	// Namespace is the opaque id of the bearer token that created the
	// transaction; only the same namespace can see it through the API.
	Namespace            string
	ThreeDSServerTransID string
	ACSTransID           string
	DSTransID            string
	ExternalReferenceID  string
	CreatedAt            time.Time
	ScenarioID           string

	CardScheme string
	CardBIN    string
	Version    string // protocol version used, 2.1.0 or 2.2.0

	Phase Phase
	// Channel is the device channel the lookup came by.
	Channel Channel
	// PANLength and PANLast4 keep what MaskedPAN shows besides the BIN;
	// the full card number is never stored.
	PANLength          uint8
	PANLast4           [4]byte
	Status             string // transStatus: C while a challenge is open
	StatusReason       string
	ECI                string
	AuthenticationType string
	ChallengeCancel    string
	WhiteListStatus    string
	WhiteListStatusSrc string
	ACSReferenceNumber string
	ACSOperatorID      string

	// Challenge holds what the challenge needs; zero for frictionless ones.
	Challenge ChallengeState
	// Method is the device data collection and 3DS Method before the
	// lookup; zero when there was none.
	Method MethodState
	// App is what the app channel keeps; zero for the other channels.
	App AppState
	// Generation is the generation of its namespace when it was made
	// (NamespaceState.Generation): once the namespace forgets its
	// transactions, a later generation, the engine no longer finds it.
	Generation uint64
}

// MethodState is the device data collection of a transaction and the
// timeline of its 3DS Method.
type MethodState struct {
	// DDCID is the ddcId: the collection's own, or the one a lookup sent.
	DDCID string
	// NotificationURL is the threeDSMethodNotificationURL the method
	// page posts to when it completes.
	NotificationURL string
	// CompInd is threeDSCompInd as the server settled it (Y, N or U): when
	// a capture's page finished waiting for the method, else at the lookup
	// that continued the collection; empty until then.
	CompInd string
	// RequestorCompInd is threeDSCompInd as the 3DS Requestor sent it.
	RequestorCompInd string
	// Available tells whether the card's ACS has a 3DS Method.
	Available bool
	// Duration is how long the method page collects.
	Duration time.Duration
	// RequestedAt is the collection request, StartedAt the browser's
	// arrival on the method page, CompletedAt the method's notification.
	RequestedAt, StartedAt, CompletedAt time.Time
	// Merchant is the API identifier (the JWT's iss) of a capture the
	// browser posted to {base}/V2/ddcCollect; empty for the JSON
	// collection.
	Merchant string
	// Claimable marks a capture whose JWT no configured secret verified
	// (the open default): it waits in the namespace of its merchant until
	// the first lookup naming its ddcId, with a card of its BIN, claims it
	// for the lookup's namespace.
	Claimable bool
	// PartialCard marks a capture made from a BIN alone (fewer than 12
	// digits): it continues a lookup of any card starting with it.
	PartialCard bool
	// Used marks a collection a lookup continued: each continues one.
	Used bool
}

// SetCard keeps what a transaction may know of card number pan: its
// scheme, BIN, length and last four digits, never the whole number.
func (t *Transaction) SetCard(pan, scheme string) {
	t.CardScheme = scheme
	t.CardBIN = strings.Clone(pan[:min(6, len(pan))])
	t.PANLength = uint8(min(len(pan), 255))
	if len(pan) >= 4 {
		copy(t.PANLast4[:], pan[len(pan)-4:])
	}
}

// MaskedPAN shows the card number with only its BIN and last four digits.
func (t Transaction) MaskedPAN() string {
	n := int(t.PANLength)
	var b strings.Builder
	b.Grow(n)
	stars := n
	if n >= 11 && len(t.CardBIN) == 6 {
		b.WriteString(t.CardBIN)
		stars = n - 10
	}
	for range stars {
		b.WriteByte('*')
	}
	if stars != n {
		b.Write(t.PANLast4[:])
	}
	return b.String()
}

// HasAuthenticationValue tells whether the status carries a CAVV/AAV (Y
// and A). The value itself is derived from the transaction id when needed
// (emulator.Engine.AuthenticationValue), so it costs no memory per transaction.
func (t Transaction) HasAuthenticationValue() bool { return t.Status == "Y" || t.Status == "A" }

// ChallengeState is the part of a transaction that only a challenge uses.
type ChallengeState struct {
	NotificationURL string
	Session         string // threeDSSessionData, returned unchanged in the final CRes
	WindowSize      int
	MerchantName    string
	Amount          string
	Currency        string
	PurchaseDate    string    // yyyy-MM-dd HH:mm:ss UTC, as the Requestor sent it
	OpenedAt        time.Time // when the first CReq arrived
	DecidedAt       time.Time
	// Interactions counts the authentication cycles the cardholder
	// attempted, EMV's interactionCounter: each answer the ACS judged
	// (a code, a password, a choice, pass or fail, the banking app's
	// answer), right or wrong. A resend, a Continue before the banking
	// app answered and a cancel are none.
	Interactions int
	// Steps counts every answer the challenge page took, cycles or not
	// (a resend, a Continue): a page is answered once (Choice.Step).
	Steps     int
	WrongOTPs int
	// Language is the lookup's browserInfo.language as sent (a BCP 47
	// tag, empty when absent): the cardholder pages follow it.
	Language string
	// Resends counts the new codes the cardholder asked for (ui otp).
	Resends int
	// App is the bank app's answer to an oob challenge, approve or
	// decline; "" while it has not answered.
	App string
	// Decision names how the challenge ended: pass, fail, cancel, otp,
	// auto-pass..., timeout-first-creq, timeout-challenge.
	Decision string
}

// ErrNotFound is returned by a Store for an unknown (or evicted) transaction.
var ErrNotFound = errors.New("transaction not found")

// ErrUnavailable is wrapped by a store (or any state behind the engine)
// that cannot be reached or did not answer in time. The engine's callers
// get it as the error emv.CodeStoreUnavailable (see emulator.AsError). A read or a
// write that never reached the store changes nothing; a write that timed
// out also wraps ErrMaybeApplied.
var ErrUnavailable = errors.New("state store unavailable")

// ErrMaybeApplied is wrapped, with ErrUnavailable, by a store whose write
// was sent but not confirmed in time: the store may have applied it or
// not, and only a later read (the enquiry) tells.
var ErrMaybeApplied = errors.New("the write may not have been applied")

// ErrStoreFull is wrapped, with ErrUnavailable, by a store that refused a
// write because it has no memory left (Redis at its maxmemory under the
// noeviction policy). Nothing was changed, and a retry will not help
// until the store's operator frees memory or raises its limit. Reads
// still work.
var ErrStoreFull = errors.New("state store full")

// Pinger is implemented by stores that can be unreachable: Ping tells
// whether the store answers now.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Store keeps transactions. Implementations must be safe for concurrent use.
// Transaction ids (ThreeDSServerTransID) are globally unique; external
// references are unique only within a namespace, and the newest
// transaction wins for a reused reference.
type Store interface {
	// Put stores a new transaction.
	Put(ctx context.Context, t Transaction) error
	// Get returns the transaction with this threeDSServerTransID.
	Get(ctx context.Context, id string) (Transaction, error)
	// GetByExternalRef returns the newest transaction of the namespace that
	// carries this externalReferenceId.
	GetByExternalRef(ctx context.Context, namespace, ref string) (Transaction, error)
	// Update applies fn to the stored transaction atomically: the change
	// is stored only if no other change of the same transaction came in
	// between, so of concurrent Updates each sees the result of the one
	// before. fn may be called more than once (a shared store retries
	// after a conflicting write): it must depend only on the transaction
	// it is given. When fn returns an error nothing is stored and the
	// error is returned.
	Update(ctx context.Context, id string, fn func(*Transaction) error) (Transaction, error)
}
