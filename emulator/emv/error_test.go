package emv_test

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// TestEMVCodesAreKnown: every EMV error code the sandbox answers with has
// its name in the EMV table, so no error body carries "Unspecified error".
func TestEMVCodesAreKnown(t *testing.T) {
	for _, code := range []string{
		emv.EMVMessageInvalid, emv.EMVVersionNotSupported, emv.EMVLimitExceeded,
		emv.EMVMissingElement, emv.EMVCriticalExtension, emv.EMVInvalidFormat,
		emv.EMVDuplicateElement, emv.EMVUnknownTransaction, emv.EMVDecryptionFailure,
		emv.EMVAccessDenied, emv.EMVInvalidISOCode, emv.EMVInvalidTransaction,
		emv.EMVTimedOut, emv.EMVTransientFailure, emv.EMVPermanentFailure,
		emv.EMVConnectionFailure,
	} {
		if len(code) != 3 || emv.EMVDescription(code) == "Unspecified error" {
			t.Errorf("EMV code %q has no name in the EMV table", code)
		}
	}
}
