package emulator_test

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// TestEMVCodesAreKnown: every EMV error code the sandbox answers with has
// its name in the EMV table, so no error body carries "Unspecified error".
func TestEMVCodesAreKnown(t *testing.T) {
	for _, code := range []string{
		emulator.EMVMessageInvalid, emulator.EMVVersionNotSupported, emulator.EMVLimitExceeded,
		emulator.EMVMissingElement, emulator.EMVCriticalExtension, emulator.EMVInvalidFormat,
		emulator.EMVDuplicateElement, emulator.EMVUnknownTransaction, emulator.EMVDecryptionFailure,
		emulator.EMVAccessDenied, emulator.EMVInvalidISOCode, emulator.EMVInvalidTransaction,
		emulator.EMVTimedOut, emulator.EMVTransientFailure, emulator.EMVPermanentFailure,
		emulator.EMVConnectionFailure,
	} {
		if len(code) != 3 || emulator.EMVDescription(code) == "Unspecified error" {
			t.Errorf("EMV code %q has no name in the EMV table", code)
		}
	}
}
