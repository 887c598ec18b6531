package emulator

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// FuzzParseAppCReq: any plaintext is a CReq or an EMV error of a CReq
// (101, 201 or 203) naming what is wrong; never a panic.
func FuzzParseAppCReq(f *testing.F) {
	f.Add([]byte(`{"threeDSServerTransID":"a","acsTransID":"b","sdkTransID":"c","messageType":"CReq","messageVersion":"2.2.0","sdkCounterStoA":"000"}`))
	f.Add([]byte(`{"threeDSServerTransID":"a","acsTransID":"b","sdkTransID":"c","messageType":"CReq","messageVersion":"2.2.0","sdkCounterStoA":"001","oobContinue":true}`))
	f.Add([]byte(`{"challengeHTMLDataEntry":"entry=1234&action=resend"}`))
	f.Add([]byte(`[[[[[[[[[[[[[[]]]]]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, plain []byte) {
		c, err := parseAppCReq(plain)
		if err != nil {
			se, ok := emv.As(err)
			if !ok {
				t.Fatalf("%v is not an EMV error", err)
			}
			switch se.EMVCode {
			case emv.EMVMessageInvalid, emv.EMVMissingElement, emv.EMVInvalidFormat:
			default:
				t.Fatalf("code %s for a CReq's plaintext", se.EMVCode)
			}
			return
		}
		if c.Counter < 0 || c.Counter > 999 || entries(c) > 1 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
