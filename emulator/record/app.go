package record

import (
	"encoding/binary"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// appV1 opens the app section of a record: the transaction's App, only
// when it is not zero (an app-channel transaction). It follows the
// channel section. Its layout:
//
//	appV1
//	uvarint length, bytes   SDKTransID, SDKAppID, SDKReferenceNumber, SealedKey, Enc,
//	                        UIType, Interface, SDKError, Device.Platform, .Model,
//	                        .OSName, .OSVersion, .Locale, .TimeZone
//	varint                  Counter, MaxTimeout
const appV1 byte = 8

// appStrings are the addresses of the app section's strings, in order.
func appStrings(a *state.AppState) [14]*string {
	d := &a.Device
	return [...]*string{&a.SDKTransID, &a.SDKAppID, &a.SDKReferenceNumber, &a.SealedKey, &a.Enc,
		&a.UIType, &a.Interface, &a.SDKError, &d.Platform, &d.Model, &d.OSName, &d.OSVersion, &d.Locale, &d.TimeZone}
}

// appendApp appends the app section of a to b.
func appendApp(b []byte, a *state.AppState) []byte {
	b = append(b, appV1)
	for _, s := range appStrings(a) {
		b = binary.AppendUvarint(b, uint64(len(*s)))
		b = append(b, *s...)
	}
	b = binary.AppendVarint(b, int64(a.Counter))
	return binary.AppendVarint(b, int64(a.MaxTimeout))
}

// app reads the app section that appendApp wrote, its opening byte
// included; a zero AppState written in one is refused.
func (r *reader) app() state.AppState {
	r.off++
	var a state.AppState
	for _, s := range appStrings(&a) {
		*s = string(r.bytes(r.uvarint()))
	}
	a.Counter = r.int()
	a.MaxTimeout = r.int()
	if a.IsZero() {
		r.fail()
	}
	return a
}
