package scenarios

import (
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Protocol versions a scenario may answer with.
const (
	Version210 = "2.1.0"
	Version220 = "2.2.0"
)

// Limits of the durations a scenario file may set.
const (
	MaxDelay     = 60 * time.Second
	MaxAutoAfter = 10 * time.Minute
	// MinChallengeTimeout and MaxChallengeTimeout bound a challenge's own
	// firstCReqTimeout and challengeTimeout.
	MinChallengeTimeout = time.Second
	MaxChallengeTimeout = 24 * time.Hour
)

// Auto-resolution choices of a challenge.
const (
	AutoPass   = ActionPass
	AutoFail   = ActionFail
	AutoCancel = ActionCancel
)

// FallbackID is the id of the built-in fallback scenario that unmatched cards
// get when no file and no option names a fallback. It is reserved.
const FallbackID = "fallback"

var (
	idPattern         = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	cardNumberPattern = regexp.MustCompile(`^[0-9]{13,19}$`)
	cardPrefixPattern = regexp.MustCompile(`^[0-9]{1,19}$`)
	twoDigits         = regexp.MustCompile(`^[0-9]{2}$`)
	threeDigits       = regexp.MustCompile(`^[0-9]{3}$`)
	errorCodePattern  = regexp.MustCompile(`^[A-Z0-9]{4}$`)
	otpPattern        = regexp.MustCompile(`^[0-9A-Za-z]{1,32}$`)
)

// Allowed values of the coded fields, as written in the error messages.
var (
	frictionlessStatuses = []string{"Y", "A", "N", "U", "R", "I"}
	outcomeStatuses      = []string{"Y", "N", "U"}
	on210Statuses        = []string{"Y", "A", "N", "U", "R"}
	errorStatuses        = []string{"N", "U", "A", "C", "R"}
	versions             = []string{Version210, Version220}
	authenticationTypes  = []string{"01", "02", "03", "04"}
	challengeCancels     = []string{"01", "02", "03", "04", "05", "06", "07", "08"}
	components           = []string{"C", "S", "D", "A"}
	autoChoices          = []string{AutoPass, AutoFail, AutoCancel}
	appFaults            = []string{AppFaultWrongCounter, AppFaultMissingField, AppFaultEmptyWhyInfo, AppFaultExtraFinalKey, AppFaultRogueSignature, AppFaultSlowReply, AppFaultErro, AppFaultNotJWE}
)

// The faults of an app-channel challenge (the challenge key appFault):
// what the ACS answers wrong, so that an app developer sees how the app's
// 3DS SDK handles it. docs/app-channel.md says what a conforming SDK does.
const (
	AppFaultWrongCounter   = "wrongCounter"   // the first CRes carries acsCounterAtoS one too high
	AppFaultMissingField   = "missingField"   // the first CRes lacks challengeInfoHeader
	AppFaultEmptyWhyInfo   = "emptyWhyInfo"   // the first CRes has whyInfoText ""
	AppFaultExtraFinalKey  = "extraFinalKey"  // the final CRes also has acsUiType
	AppFaultRogueSignature = "rogueSignature" // the lookup signs acsSignedContent outside the published roots
	AppFaultSlowReply      = "slowReply"      // each CRes comes after AppSlowReply
	AppFaultErro           = "erro"           // an Erro 403 answers the first CReq
	AppFaultNotJWE         = "notJWE"         // a body that is not a JWE answers the first CReq
)

// AppSlowReply is how long the fault slowReply holds each CRes: past the
// 10 seconds an SDK waits for it.
const AppSlowReply = 11 * time.Second

// AppFaults lists the values of the challenge key appFault.
func AppFaults() []string { return slices.Clone(appFaults) }

// EMVErrorName returns the EMV 3DS specification's name of an error code,
// or "" for a code it does not name. It is the default description of a
// scenario error, and the engine's too.
func EMVErrorName(code string) string { return emvDescriptions[code] }

// emvDescriptions names the EMV error codes, as the EMV 3DS specification
// names them.
var emvDescriptions = map[string]string{
	"101": "Message Received Invalid",
	"102": "Message Version Number Not Supported",
	"103": "Sent Messages Limit Exceeded",
	"201": "Required Data Element Missing",
	"202": "Critical Message Extension Not Recognised",
	"203": "Format of One or More Data Elements is Invalid according to the Specification",
	"204": "Duplicate Data Element",
	"301": "Transaction ID Not Recognized",
	"302": "Data Decryption Failure",
	"303": "Access Denied, Invalid Endpoint",
	"304": "ISO Code Invalid",
	"305": "Transaction data not valid",
	"402": "Transaction Timed Out",
	"403": "Transient System Failure",
	"404": "Permanent System Failure",
	"405": "System Connection Failure",
}

// reasonProblem says what is wrong with a transStatusReason for the given
// protocol version, or "" when it is valid: 01-26 or 80-99, and 22-26 only
// from 2.2.0 on.
func reasonProblem(reason, version string) string {
	if !twoDigits.MatchString(reason) {
		return "must be two digits, 01-26 or 80-99"
	}
	n, _ := strconv.Atoi(reason)
	switch {
	case n >= 1 && n <= 21, n >= 80:
		return ""
	case n >= 22 && n <= 26:
		if version == Version210 {
			return "needs version 2.2.0 (2.1.0 knows reasons 01-21 and 80-99)"
		}
		return ""
	default:
		return "must be 01-26 or 80-99"
	}
}

// luhnValid reports whether a string of digits passes the Luhn check.
func luhnValid(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// exemptFromLuhn reports whether a PAN belongs to UnionPay (62, 81), whose
// numbers need not pass the Luhn check.
func exemptFromLuhn(pan string) bool {
	return len(pan) >= 2 && (pan[:2] == "62" || pan[:2] == "81")
}
