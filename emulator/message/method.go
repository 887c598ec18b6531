package message

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// MethodTimeout is how long a 3DS Requestor waits for the 3DS Method's
// notification before it sends the lookup with threeDSCompInd N (EMV 3DS:
// 10 seconds).
const MethodTimeout = 10 * time.Second

// DDCPrefix starts every ddcId the emulator hands out.
const DDCPrefix = "ddc-"

// MaxMethodData bounds the threeDSMethodData form field, in characters.
const MaxMethodData = 4096

// MethodData is the content of threeDSMethodData: Base64Url of this JSON
// object. The method page receives both members; the notification to the
// 3DS Requestor carries only the transaction id.
type MethodData struct {
	ThreeDSServerTransID string `json:"threeDSServerTransID"`
	NotificationURL      string `json:"threeDSMethodNotificationURL,omitempty"`
}

// EncodeMethodData encodes m as threeDSMethodData: Base64Url without
// padding of its JSON.
func EncodeMethodData(m MethodData) string {
	s, err := EncodeMessage(m)
	if err != nil { // two strings always marshal
		panic(fmt.Sprintf("emulator: encode threeDSMethodData: %v", err))
	}
	return s
}

// DecodeMethodData decodes the threeDSMethodData form field. needURL
// says whether threeDSMethodNotificationURL must be present (the method
// page) or may be absent (the notification). Its failures are *emv.Error: 201
// for a missing value, 203 for bad Base64, JSON, id or URL.
func DecodeMethodData(s string, needURL bool) (MethodData, error) {
	if s == "" {
		return MethodData{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "the form field threeDSMethodData is missing", "threeDSMethodData")
	}
	if len(s) > MaxMethodData {
		return MethodData{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("threeDSMethodData is %d characters long, at most %d", len(s), MaxMethodData), "threeDSMethodData")
	}
	raw, err := DecodeBase64(s)
	if err != nil {
		return MethodData{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "threeDSMethodData is not Base64Url: "+err.Error(), "threeDSMethodData")
	}
	if dups := DuplicateKeys(raw); len(dups) > 0 {
		return MethodData{}, emv.NewError(emv.CodeDuplicateField, emv.EMVDuplicateElement, "threeDSMethodData holds "+strings.Join(dups, ", ")+" more than once", strings.Join(dups, ","))
	}
	var m MethodData
	if err := json.Unmarshal(raw, &m); err != nil {
		return MethodData{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "threeDSMethodData is not a JSON object of strings: "+err.Error(), "threeDSMethodData")
	}
	if m.ThreeDSServerTransID == "" {
		return MethodData{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "threeDSMethodData has no threeDSServerTransID", "threeDSServerTransID")
	}
	if !ValidUUID(m.ThreeDSServerTransID) {
		return MethodData{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "threeDSServerTransID in threeDSMethodData is not a UUID", "threeDSServerTransID")
	}
	m.ThreeDSServerTransID = strings.ToLower(m.ThreeDSServerTransID)
	switch {
	case m.NotificationURL == "" && needURL:
		return MethodData{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement,
			"threeDSMethodData has no threeDSMethodNotificationURL: the method cannot notify the 3DS Requestor", "threeDSMethodNotificationURL")
	case m.NotificationURL != "" && !isWebURL(m.NotificationURL):
		return MethodData{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			"threeDSMethodNotificationURL in threeDSMethodData is not an absolute http or https URL", "threeDSMethodNotificationURL")
	}
	return m, nil
}

// isWebURL tells whether s is an absolute http or https URL with a host,
// at most 2048 characters.
func isWebURL(s string) bool {
	if len(s) > 2048 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}
