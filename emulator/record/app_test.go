package record

import (
	"reflect"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// appTx is an app-channel challenge: fullTx with every field of App set.
func appTx() state.Transaction {
	tx := fullTx()
	tx.Channel = state.ChannelApp
	tx.App = state.AppState{
		SDKTransID: "b2385523-a66c-4907-ac3c-91848e8c0067", SDKAppID: "9063b12c-fcde-43c7-b28e-8d0af5520e8a",
		SDKReferenceNumber: "3DS_LOA_SDK_ADBV_739485_94783", SealedKey: "\x00\x01sealed\xff" + string(make([]byte, 60)),
		Enc: "A128CBC-HS256", Counter: 3, UIType: "02", Interface: "01", MaxTimeout: 5, SDKError: "",
		Device: state.DeviceInfo{Platform: "Android", Model: "Pixel 8", OSName: "Android", OSVersion: "15", Locale: "th-TH", TimeZone: "Asia/Bangkok"},
	}
	return tx
}

// TestRecordAppSection: an app-channel transaction keeps App in a
// section after the channel's; a transaction of another channel writes
// none, a cut section or an empty one is refused.
func TestRecordAppSection(t *testing.T) {
	tx := appTx()
	if got := roundTrip(t, tx); !reflect.DeepEqual(got, tx) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got.App, tx.App)
	}
	without := tx
	without.App = state.AppState{}
	base := Append(nil, &without)
	rec := Append(nil, &tx)
	if string(rec[:len(base)]) != string(base) || rec[len(base)] != appV1 {
		t.Fatalf("the app section does not follow the record without it")
	}
	for n := len(base) + 1; n < len(rec); n++ {
		if _, err := Decode(rec[:n]); err == nil {
			t.Errorf("a record cut at %d of %d, inside its app section, decoded", n, len(rec))
		}
	}
	empty := appendApp(base[:len(base):len(base)], &state.AppState{})
	if _, err := Decode(empty); err == nil {
		t.Error("an app section holding nothing decoded")
	}
}
