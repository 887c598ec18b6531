package emv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// ErrorCode is the 4-character errorCode of the spec's error body (2.16).
// The catalogue below is the only source of these codes; web maps each one
// to an HTTP status in a single table.
type ErrorCode string

// The errorCode catalogue. The first two letters name the area, the digits
// follow the EMV error code where there is one.
const (
	CodeUnauthorized       ErrorCode = "AU01" // Authorization header missing or not "Bearer <token>"
	CodeTokenRejected      ErrorCode = "AU02" // bearer token not in the configured list
	CodeAccessToken        ErrorCode = "AU03" // access token expired, malformed or not issued by this sandbox (EMV 303)
	CodeCrossSite          ErrorCode = "AU04" // a browser posted from another site's page to one of the sandbox's own forms (EMV 303)
	CodeCaptureJWT         ErrorCode = "DC01" // device data capture: the jwt is not accepted (EMV 303)
	CodeCaptureReplay      ErrorCode = "DC02" // device data capture: the JWT's jti was used before (EMV 303)
	CodeCaptureInUse       ErrorCode = "DC03" // device data capture: the ddcId names a capture already (EMV 305)
	CodeCallbackURL        ErrorCode = "CB01" // result callback URL refused: not http(s), a port out of range, or its host or port not allowed (EMV 203)
	CodeCallbackLimit      ErrorCode = "CB02" // too many namespaces registered a result callback or rotated its secret (EMV 103)
	CodeMalformedJSON      ErrorCode = "MS01" // body is not one JSON object (EMV 101)
	CodeContentType        ErrorCode = "MS02" // Content-Type is not application/json (EMV 101)
	CodeBodyTooLarge       ErrorCode = "MS03" // body over the size limit (EMV 101)
	CodeUnsupportedVersion ErrorCode = "VR02" // messageVersion not served (EMV 102)
	CodeMissingField       ErrorCode = "FD01" // required data element missing (EMV 201)
	CodeInvalidField       ErrorCode = "FD03" // data element format invalid (EMV 203)
	CodeDuplicateField     ErrorCode = "FD04" // same key twice in one object (EMV 204)
	CodeCriticalExtension  ErrorCode = "FD02" // critical message extension not recognised (EMV 202)
	CodeInvalidISOCode     ErrorCode = "FD34" // ISO 4217 / 3166-1 code unknown (EMV 304)
	CodeDeviceChannel      ErrorCode = "CH01" // a deviceChannel its path does not serve (EMV 203)
	CodeUnknownTransaction ErrorCode = "TX01" // transaction id or reference not found (EMV 301)
	CodeTransactionState   ErrorCode = "TX05" // transaction data not valid for this step (EMV 305)
	CodeDecryption         ErrorCode = "TX02" // challenge state could not be verified (EMV 302)
	CodeSDKEncData         ErrorCode = "SD01" // app lookup: sdkEncData does not decrypt with a directory server's key (EMV 302, component D)
	CodeNotFound           ErrorCode = "RT04" // no such route
	CodeMethodNotAllowed   ErrorCode = "RT05" // route exists, method does not
	CodeInternal           ErrorCode = "SY01" // unexpected failure of the emulator itself (EMV 404)
	CodeStoreUnavailable   ErrorCode = "SY02" // the shared state store is unreachable or slow (EMV 403)
	CodeStoreFull          ErrorCode = "SY04" // the shared state store is full and refuses writes (EMV 404)
	CodeBusy               ErrorCode = "SY03" // too many requests held in scenario delays (EMV 403)
	CodeScenarioTimeout    ErrorCode = "SC02" // scenario: transaction timed out (EMV 402)
	CodeScenarioTransient  ErrorCode = "SC03" // scenario: transient system failure (EMV 403)
	CodeScenarioPermanent  ErrorCode = "SC04" // scenario: permanent system failure (EMV 404)
	CodeScenarioConnection ErrorCode = "SC05" // scenario: system connection failure (EMV 405)
	CodeScenarioVersion    ErrorCode = "SC12" // scenario: protocol version not supported for the card (EMV 102)
	CodeUnknownScenario    ErrorCode = "SC01" // X-Scenario names no scenario (EMV 203)
	CodeScenarioInvalid    ErrorCode = "AD03" // admin: scenario document invalid (EMV 203)
	CodeScenarioExists     ErrorCode = "AD04" // admin: scenario id or selector already in the namespace (EMV 204)
	CodeScenarioLimit      ErrorCode = "AD13" // admin: too many runtime scenarios (EMV 103)
	CodeScenarioTooLarge   ErrorCode = "AD14" // admin: the namespace's runtime scenarios would take too many bytes (EMV 103)
	CodeScenarioNotFound   ErrorCode = "AD01" // admin: no runtime scenario with this id (EMV 203)
	CodeTooManyWaits       ErrorCode = "AD15" // admin: too many waits open at once, for the token or in all (EMV 103)
	CodeClockLimit         ErrorCode = "AD16" // admin: the token's clock would run too far ahead (EMV 203)
	CodeNamespaceLimit     ErrorCode = "AD17" // admin: too many tokens keep a clock or a forgetting at once (EMV 103)
	CodeNoJournal          ErrorCode = "AD18" // admin: the journal is off (--journal-size 0), so there is no list of transactions (EMV 303)
)

// The EMV error codes (emvErrorCode) the sandbox answers with: the error
// message codes of EMV 3-D Secure (see EMVDescription for their names).
const (
	EMVMessageInvalid      = "101" // message received invalid
	EMVVersionNotSupported = "102" // message version number not supported
	EMVLimitExceeded       = "103" // sent messages limit exceeded
	EMVMissingElement      = "201" // required data element missing
	EMVCriticalExtension   = "202" // critical message extension not recognised
	EMVInvalidFormat       = "203" // format of one or more data elements invalid
	EMVDuplicateElement    = "204" // duplicate data element
	EMVUnknownTransaction  = "301" // transaction id not recognised
	EMVDecryptionFailure   = "302" // data decryption failure
	EMVAccessDenied        = "303" // access denied, invalid endpoint
	EMVInvalidISOCode      = "304" // ISO code invalid
	EMVInvalidTransaction  = "305" // transaction data not valid
	EMVTimedOut            = "402" // transaction timed out
	EMVTransientFailure    = "403" // transient system failure
	EMVPermanentFailure    = "404" // permanent system failure
	EMVConnectionFailure   = "405" // system connection failure
)

// EMV error components (emvErrorComponent).
const (
	ComponentSDK       = "C"
	ComponentServer    = "S"
	ComponentDirectory = "D"
	ComponentACS       = "A"
)

// Problem is one thing wrong with one field of a request.
type Problem struct {
	// Field is the dotted path of the offending field, e.g. "card.cardNumber".
	Field string `json:"field"`
	// EMVCode is the EMV error code this problem belongs to: 101 (the
	// body's shape beyond a bound), 102, 201, 203, 204 or 304.
	EMVCode string `json:"emvErrorCode"`
	// Reason says in plain words what is wrong.
	Reason string `json:"reason"`
}

// Error is a failure the engine reports to the caller. It carries every
// field of the spec's error body (2.16); web maps Code to an HTTP status.
type Error struct {
	Code        ErrorCode
	Status      string // transaction status of the error body, "U" unless a scenario says otherwise
	Message     string // the body's "error" text
	EMVCode     string // emvErrorCode, 3 digits
	Component   string // emvErrorComponent, 1 char
	Description string // emvErrorDescription
	Detail      string // emvErrorDetail: comma-separated field names for message errors
	// HTTPStatus, when non-zero, overrides the status web derives from Code.
	// Only scenarios set it.
	HTTPStatus int
	// Scenario is the scenario whose result or fault this error is ("chaos"
	// for an injected one); empty for the errors of the request itself.
	Scenario string
	// Problems lists every problem found in the request, all at once.
	Problems []Problem
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (EMV %s): %s", e.Code, e.EMVCode, e.Message)
}

// As returns err as an *Error when it is (or wraps) one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// EMVDescription returns the EMV specification's name for an error code.
func EMVDescription(code string) string {
	if d := scenarios.EMVErrorName(code); d != "" {
		return d
	}
	return "Unspecified error"
}

// NewError builds an Error for one EMV error code with status U and the
// server as the reporting component.
func NewError(code ErrorCode, emvCode, message, detail string) *Error {
	return &Error{
		Code:        code,
		Status:      "U",
		Message:     Truncate(message, 255),
		EMVCode:     emvCode,
		Component:   ComponentServer,
		Description: EMVDescription(emvCode),
		Detail:      Truncate(detail, 2048),
	}
}

// problemOrder ranks EMV codes when one request has several kinds of
// problem: the body carries the first kind present, the Problems list all.
// An unsupported message version comes first, as EMV 3-D Secure checks the
// version before the content: the content of a version not served cannot
// be judged by the rules of another.
var problemOrder = []struct {
	emv            string
	code           ErrorCode
	single, plural string
}{
	{EMVVersionNotSupported, CodeUnsupportedVersion, "unsupported message version", "unsupported message version"},
	{EMVDuplicateElement, CodeDuplicateField, "1 duplicate field", "%d duplicate fields"},
	{EMVMissingElement, CodeMissingField, "1 required field missing", "%d required fields missing"},
	{EMVInvalidFormat, CodeInvalidField, "1 field with an invalid format", "%d fields with an invalid format"},
	{EMVInvalidISOCode, CodeInvalidISOCode, "1 invalid ISO code", "%d invalid ISO codes"},
}

// ValidationError turns a list of field problems into one Error. The EMV code
// is that of the most fundamental kind of problem (102, then 204, 201, 203,
// 304); emvErrorDetail lists the fields of that kind, the error text counts
// every kind, and Problems keeps them all.
func ValidationError(problems []Problem) *Error {
	if len(problems) == 0 {
		return nil
	}
	var parts []string
	var first *Error
	for _, k := range problemOrder {
		var fields []string
		for _, p := range problems {
			if p.EMVCode == k.emv {
				fields = append(fields, p.Field)
			}
		}
		if len(fields) == 0 {
			continue
		}
		part := k.single
		if len(fields) > 1 {
			part = fmt.Sprintf(k.plural, len(fields))
		}
		parts = append(parts, part+" ("+strings.Join(fields, ", ")+")")
		if first == nil {
			first = NewError(k.code, k.emv, "", strings.Join(fields, ","))
		}
	}
	if first == nil { // only unknown kinds: report as format problems
		first = NewError(CodeInvalidField, EMVInvalidFormat, "", problems[0].Field)
		parts = append(parts, "invalid field ("+problems[0].Field+")")
	}
	first.Message = Truncate("invalid request: "+strings.Join(parts, "; "), 255)
	first.Problems = problems
	return first
}

// Truncate cuts s to at most n bytes, on a rune boundary, marking the cut
// with "...": error messages stay bounded whatever a request carried.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= 3
	for n > 0 && s[n]&0xC0 == 0x80 { // cut on a rune boundary
		n--
	}
	return s[:n] + "..."
}
