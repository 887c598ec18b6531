package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// appCReq is a decrypted CReq of the app channel, its members checked for
// presence and format (parseAppCReq) but not yet against its
// transaction.
type appCReq struct {
	ThreeDSServerTransID string
	ACSTransID           string
	SDKTransID           string
	MessageType          string
	MessageVersion       string
	// Counter is sdkCounterStoA as a number.
	Counter int
	// The cardholder's entries; each "" (false) when absent.
	DataEntry     string
	HTMLDataEntry string
	OOBContinue   bool
	Resend        bool
	NoEntry       bool
	Cancel        string
	Whitelisting  string
	AppURL        string
}

// hasEntry tells whether the CReq answers the screen: any entry but the
// trust answer and the app URL, which ride along with one.
func (c appCReq) hasEntry() bool {
	return c.DataEntry != "" || c.HTMLDataEntry != "" || c.OOBContinue || c.Resend || c.NoEntry || c.Cancel != ""
}

// Bounds of a CReq's members: EMV's lengths.
const (
	maxDataEntry     = 45
	maxHTMLDataEntry = 256
	maxAppURL        = 256
)

// appCReqRequired are the members every CReq carries.
var appCReqRequired = []string{"threeDSServerTransID", "acsTransID", "sdkTransID", "messageType", "messageVersion", "sdkCounterStoA"}

// sdkCancels are the challengeCancel values an SDK sends: 01 the
// cardholder cancelled, 06 a transaction error, 07 unknown, 08 the SDK
// timed out.
var sdkCancels = []string{"01", "06", "07", "08"}

// parseAppCReq reads the plaintext of a CReq. Its errors are those of EMV
// for a CReq: 101 for what is not a JSON object, 201 for a missing
// member, 203 for one of the wrong format; each names the member.
func parseAppCReq(plain []byte) (appCReq, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(plain, &members); err != nil || members == nil {
		return appCReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVMessageInvalid, "the decrypted CReq is not a JSON object", "")
	}
	for _, k := range appCReqRequired {
		if _, ok := members[k]; !ok {
			return appCReq{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "the CReq has no "+k, k)
		}
	}
	var c appCReq
	strs := []struct {
		name string
		dst  *string
		max  int
	}{
		{"threeDSServerTransID", &c.ThreeDSServerTransID, 36},
		{"acsTransID", &c.ACSTransID, 36},
		{"sdkTransID", &c.SDKTransID, 36},
		{"messageType", &c.MessageType, 4},
		{"messageVersion", &c.MessageVersion, 8},
		{"challengeDataEntry", &c.DataEntry, maxDataEntry},
		{"challengeHTMLDataEntry", &c.HTMLDataEntry, maxHTMLDataEntry},
		{"challengeCancel", &c.Cancel, 2},
		{"whitelistingDataEntry", &c.Whitelisting, 1},
		{"threeDSRequestorAppURL", &c.AppURL, maxAppURL},
	}
	for _, s := range strs {
		raw, ok := members[s.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, s.dst); err != nil || *s.dst == "" || len(*s.dst) > s.max {
			return appCReq{}, formatError(s.name, fmt.Sprintf("a string of 1 to %d characters", s.max))
		}
	}
	var counter string
	if err := json.Unmarshal(members["sdkCounterStoA"], &counter); err != nil || len(counter) != 3 || !allDigits(counter) {
		return appCReq{}, formatError("sdkCounterStoA", `three digits, "000" for the first CReq`)
	}
	c.Counter, _ = strconv.Atoi(counter)
	flags := []struct {
		name string
		dst  *bool
		// boolean: a JSON true is taken too (Android's oobContinue).
		boolean bool
	}{{"oobContinue", &c.OOBContinue, true}, {"resendChallenge", &c.Resend, false}, {"challengeNoEntry", &c.NoEntry, false}}
	for _, f := range flags {
		raw, ok := members[f.name]
		if !ok {
			continue
		}
		switch {
		case bytes.Equal(raw, []byte(`"Y"`)):
			*f.dst = true
		case f.boolean && bytes.Equal(bytes.TrimSpace(raw), []byte("true")):
			*f.dst = true
		case f.boolean && bytes.Equal(bytes.TrimSpace(raw), []byte("false")):
		default:
			want := `"Y"`
			if f.boolean {
				want = `true or "Y"`
			}
			return appCReq{}, formatError(f.name, want)
		}
	}
	if c.Cancel != "" && !slices.Contains(sdkCancels, c.Cancel) {
		return appCReq{}, formatError("challengeCancel", "01, 06, 07 or 08")
	}
	if c.Whitelisting != "" && c.Whitelisting != "Y" && c.Whitelisting != "N" {
		return appCReq{}, formatError("whitelistingDataEntry", "Y or N")
	}
	if c.AppURL != "" {
		if u, err := url.Parse(c.AppURL); err != nil || u.Scheme == "" {
			return appCReq{}, formatError("threeDSRequestorAppURL", "an absolute URL")
		}
	}
	if c.HTMLDataEntry != "" {
		if _, err := url.ParseQuery(c.HTMLDataEntry); err != nil {
			return appCReq{}, formatError("challengeHTMLDataEntry", "the form's fields, URL-encoded")
		}
	}
	if n := entries(c); n > 1 {
		return appCReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			"the CReq carries more than one of challengeDataEntry, challengeHTMLDataEntry, oobContinue, resendChallenge, challengeNoEntry and challengeCancel: send one", "challengeDataEntry")
	}
	return c, nil
}

// entries counts the entries of c that answer a screen.
func entries(c appCReq) int {
	n := 0
	for _, set := range []bool{c.DataEntry != "", c.HTMLDataEntry != "", c.OOBContinue, c.Resend, c.NoEntry, c.Cancel != ""} {
		if set {
			n++
		}
	}
	return n
}

// formatError is the 203 of a CReq member that is not as want says.
func formatError(name, want string) *emv.Error {
	return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("the CReq's %s is not %s", name, want), name)
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
