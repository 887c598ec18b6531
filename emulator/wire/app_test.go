package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// appBody returns the app lookup of the browser lookup's base, every
// shared field kept, with the edits applied.
func appBody(tb testing.TB, edits ...wiretest.Edit) []byte {
	tb.Helper()
	return channelBody(tb, wiretest.AppBase, edits...)
}

// channelBody returns the lookup that toChannel makes of the browser
// lookup's base, with the edits applied.
func channelBody(tb testing.TB, toChannel func([]byte) ([]byte, error), edits ...wiretest.Edit) []byte {
	tb.Helper()
	base, err := toChannel(baseBody(tb))
	if err != nil {
		tb.Fatal(err)
	}
	out, err := wiretest.Edited(base, edits...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestDecodeAppBase(t *testing.T) {
	got, ignored, err := DecodeApp(appBody(t))
	if err != nil {
		t.Fatalf("DecodeApp(base): %v (%+v)", err, asError(t, err).Problems)
	}
	if len(ignored) != 0 {
		t.Errorf("ignored = %v, want none", ignored)
	}
	var gotKey, wantKey map[string]any
	if got.App == nil || json.Unmarshal([]byte(got.App.SDKEphemPubKey), &gotKey) != nil ||
		json.Unmarshal([]byte(wiretest.EphemPubKey), &wantKey) != nil || !reflect.DeepEqual(gotKey, wantKey) {
		t.Fatalf("app %+v: want the key %s", got.App, wiretest.EphemPubKey)
	}
	want := message.AppRequest{SDKAppID: wiretest.SDKAppID, SDKTransID: wiretest.SDKTransID, SDKReferenceNumber: wiretest.SDKRef,
		SDKEphemPubKey: got.App.SDKEphemPubKey, SDKEncData: wiretest.EncDataShape, SDKMaxTimeout: 5,
		RenderOptions: message.DeviceRenderOptions{Interface: "03", UITypes: []string{"01", "02", "03", "04", "05"}}}
	if got.DeviceChannel != 1 || got.App == nil || !reflect.DeepEqual(*got.App, want) {
		t.Errorf("DecodeApp(base): channel %d, app %+v, want %+v", got.DeviceChannel, got.App, want)
	}
	if got.Browser != (message.BrowserInfo{}) || got.Purchase == nil {
		t.Errorf("browser %+v, purchase %+v: want none and the base's", got.Browser, got.Purchase)
	}
}

// TestDecodeAppRules: the rules the app lookup shares with the browser's,
// row for row, and its own.
func TestDecodeAppRules(t *testing.T) {
	checkRows(t, wiretest.AppRules(), appBody(t), DecodeApp)
}

func TestDecodeAppAccepts(t *testing.T) {
	var key map[string]any
	if err := json.Unmarshal([]byte(wiretest.EphemPubKey), &key); err != nil {
		t.Fatal(err)
	}
	withUse := map[string]any{"use": "sig", "kid": "k1"}
	for k, v := range key {
		withUse[k] = v
	}
	tests := []struct {
		name  string
		edits []wiretest.Edit
		check func(message.LookupRequest) bool
	}{
		{"sdkEphemPubKey as a string holding its JSON", []wiretest.Edit{set("sdkEphemPubKey", wiretest.EphemPubKey)},
			func(r message.LookupRequest) bool { return r.App.SDKEphemPubKey == wiretest.EphemPubKey }},
		{"sdkEphemPubKey with use and kid, echoed as sent", []wiretest.Edit{set("sdkEphemPubKey", withUse)},
			func(r message.LookupRequest) bool {
				return strings.Contains(r.App.SDKEphemPubKey, `"use":"sig"`) && strings.Contains(r.App.SDKEphemPubKey, `"kid":"k1"`)
			}},
		{"sdkMaxTimeout as a number", []wiretest.Edit{set("sdkMaxTimeout", num("60"))},
			func(r message.LookupRequest) bool { return r.App.SDKMaxTimeout == 60 }},
		{"native only, one UI type", []wiretest.Edit{set("deviceRenderOptions", map[string]any{"sdkInterface": "01", "sdkUiType": []string{"04"}})},
			func(r message.LookupRequest) bool {
				o := r.App.RenderOptions
				return o.Interface == "01" && reflect.DeepEqual(o.UITypes, []string{"04"})
			}},
		{"upper-case UUIDs", []wiretest.Edit{set("sdkTransId", strings.ToUpper(wiretest.SDKTransID))},
			func(r message.LookupRequest) bool { return r.App.SDKTransID == strings.ToUpper(wiretest.SDKTransID) }},
		{"a payment without purchase", []wiretest.Edit{del("purchase"), set("messageCategory", "02")},
			func(r message.LookupRequest) bool { return r.Purchase == nil }},
		{"the browser's members ignored", []wiretest.Edit{set("browserInfo", map[string]any{"language": "en"}), set("ddcId", "x")},
			func(r message.LookupRequest) bool { return r.Browser == (message.BrowserInfo{}) && r.DDCID == "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := DecodeApp(appBody(t, tt.edits...))
			if err != nil {
				t.Fatalf("refused: %v (%+v)", err, asError(t, err).Problems)
			}
			if !tt.check(r) {
				t.Errorf("decoded %+v, app %+v", r, r.App)
			}
		})
	}
}

// TestDecodeAppAllProblems: every problem at once, the app's own among
// the shared ones, and EMV's spellings named as hints.
func TestDecodeAppAllProblems(t *testing.T) {
	body := appBody(t,
		del("externalReferenceId"),
		set("card.cardNumber", "1234"),
		del("sdkTransId"), set("sdkTransID", wiretest.SDKTransID),
		set("sdkEphemPubKey", map[string]any{"kty": "EC"}),
		set("sdkMaxTimeout", "01"),
		set("deviceRenderOptions.sdkUiType", []string{"07"}),
	)
	_, _, err := DecodeApp(body)
	e := asError(t, err)
	want := []struct{ code, field string }{
		{"201", "externalReferenceId"},
		{"203", "card.cardNumber"},
		{"201", "sdkTransId"},
		{"203", "sdkEphemPubKey"},
		{"203", "sdkMaxTimeout"},
		{"203", "deviceRenderOptions.sdkUiType"},
	}
	if len(e.Problems) != len(want) {
		t.Errorf("got %d problems %+v, want %d", len(e.Problems), e.Problems, len(want))
	}
	for _, w := range want {
		if !hasProblem(e, w.code, w.field) {
			t.Errorf("problems %+v lack %s on %s", e.Problems, w.code, w.field)
		}
	}
	for _, p := range e.Problems {
		if p.Field == "sdkTransId" && !strings.Contains(p.Reason, "sdkTransID") {
			t.Errorf("sdkTransId's reason %q does not name the spelling sent", p.Reason)
		}
	}
}

// TestDeviceChannelApp: deviceChannel 1 on another path, and anything
// but 1 on the app's, is CH01 naming the path that serves it.
func TestDeviceChannelApp(t *testing.T) {
	tests := []struct {
		name   string
		decode func([]byte) (message.LookupRequest, []string, error)
		body   []byte
		reason string
	}{
		{"app on the browser path", DecodeLookup, edited(t, set("deviceChannel", num("1"))),
			"deviceChannel 1 (app) is served on /authentication/app; /authentication/brw serves deviceChannel 2 (browser)"},
		{"browser on the app path", DecodeApp, appBody(t, set("deviceChannel", num("2"))),
			"deviceChannel 2 (browser) is served on /authentication/brw; /authentication/app serves deviceChannel 1 (app)"},
		{"3RI on the app path", DecodeApp, appBody(t, set("deviceChannel", num("3"))),
			"deviceChannel 3 (3RI) is served on /authentication/3ri; /authentication/app serves deviceChannel 1 (app)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.decode(tt.body)
			e := asError(t, err)
			if e.Code != emv.CodeDeviceChannel || e.Detail != "deviceChannel" || !strings.Contains(e.Message, tt.reason) {
				t.Errorf("got %s %q %q, want CH01 saying %q", e.Code, e.Detail, e.Message, tt.reason)
			}
		})
	}
}

// TestEncodeAppAnswer: the app's members of a lookup answer are written
// as encoding/json writes them.
func TestEncodeAppAnswer(t *testing.T) {
	r := message.LookupResponse{Status: "C", Version: "2.2.0", SDKTransID: wiretest.SDKTransID,
		ACSRenderingType: &message.RenderingType{Interface: "01", UITemplate: "04"}, ACSSignedContent: "a.b.c"}
	got := AppendLookupResponse(nil, &r, "")
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want)+"\n" {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func FuzzDecodeApp(f *testing.F) {
	lookupSeeds(f)
	f.Add(appBody(f))
	f.Add(appBody(f, set("sdkEphemPubKey", wiretest.EphemPubKey), set("deviceChannel", "2")))
	f.Add(appBody(f, set("sdkEphemPubKey", map[string]any{"kty": "EC", "crv": "P-256", "x": "", "y": []int{1}}),
		set("deviceRenderOptions", map[string]any{"sdkUiType": []any{"01", nil, map[string]any{}}})))
	f.Add(appBody(f, set("sdkEncData", "a.b.c.d.e.f"), set("sdkMaxTimeout", num("5e1"))))
	f.Fuzz(func(t *testing.T, body []byte) {
		r1, ig1, err := DecodeApp(body)
		if err != nil {
			checkError(t, body, err)
			return
		}
		a := r1.App
		if r1.DeviceChannel != 1 || a == nil || len(a.SDKTransID) != 36 || a.SDKMaxTimeout < 5 || len(a.RenderOptions.UITypes) == 0 ||
			strings.Count(a.SDKEncData, ".") != 4 || a.SDKEphemPubKey == "" {
			t.Fatalf("body %q: accepted %+v, app %+v", body, r1, a)
		}
		r2, ig2, err := DecodeApp(body)
		if err != nil || !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(ig1, ig2) {
			t.Fatalf("body %q: second decode differs: %+v, %v", body, r2, err)
		}
	})
}
