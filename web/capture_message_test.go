package web

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// TestProfileMessage: the message has Cruise's /V2/ shape and the flat
// fields beside it, in success and in failure.
func TestProfileMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		out  message.CaptureOutcome
		want string
	}{
		{"completed", message.CaptureOutcome{DDCID: "d-1", ThreeDSServerTransID: "tx-1", CompInd: "Y"},
			`{"MessageType":"profile.completed","Payload":{"ActionCode":"SUCCESS","SessionId":"d-1","DataSources":{"MethodUrl":{"Attempted":true,"Completed":true}}},` +
				`"SessionId":"d-1","Status":true,"status":"completed","ddcId":"d-1","threeDSCompInd":"Y","threeDsServerTransId":"tx-1"}`},
		{"no method", message.CaptureOutcome{DDCID: "d-2", ThreeDSServerTransID: "tx-2", CompInd: "U"},
			`{"MessageType":"profile.completed","Payload":{"ActionCode":"SUCCESS","SessionId":"d-2","DataSources":{"MethodUrl":{"Attempted":false,"Completed":false}}},` +
				`"SessionId":"d-2","Status":true,"status":"completed","ddcId":"d-2","threeDSCompInd":"U","threeDsServerTransId":"tx-2"}`},
		{"failed", message.CaptureOutcome{DDCID: "d-3", Err: emv.NewError(emv.CodeCaptureReplay, emv.EMVAccessDenied, "jti used", "jwt")},
			`{"MessageType":"profile.completed","Payload":{"ActionCode":"ERROR","SessionId":"d-3"},` +
				`"SessionId":"d-3","Status":false,"status":"failed","ddcId":"d-3","errorCode":"DC02","error":"jti used","emvErrorCode":"303"}`},
	}
	for _, tt := range tests {
		if got := profileMessage(tt.out); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
