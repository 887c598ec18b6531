package record

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// fullTx is a challenge transaction with every field set: unicode and
// empty-looking values, times in UTC, and a session long enough to need
// multi-byte lengths.
func fullTx() state.Transaction {
	created := time.Date(2026, 3, 29, 1, 59, 59, 999_999_999, time.UTC)
	return state.Transaction{
		Namespace:            "5e1f0c2a9b7d4e61",
		ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
		ACSTransID:           "d7c1ee99-9478-44a6-b1f2-391e29c6b340",
		DSTransID:            "f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
		ExternalReferenceID:  "Bestellung-äöü-日本-🛒",
		CreatedAt:            created,
		ScenarioID:           "visa-challenge-otp",
		CardScheme:           scenarios.SchemeVisa,
		CardBIN:              "400000",
		Version:              "2.2.0",
		Phase:                state.PhaseChallengeOpened,
		PANLength:            19,
		PANLast4:             [4]byte{'9', '0', '0', '3'},
		Status:               "C",
		StatusReason:         "01",
		ECI:                  "07",
		AuthenticationType:   "02",
		ChallengeCancel:      "04",
		WhiteListStatus:      "Y",
		WhiteListStatusSrc:   "01",
		ACSReferenceNumber:   "3DS_LOA_ACS_PRIC_020200_17135",
		ACSOperatorID:        "ACS-PRIC-9444-7396",
		Method: state.MethodState{
			DDCID:            "ddc-8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
			NotificationURL:  "https://merchant.example/3ds/method?o=Größe",
			CompInd:          "Y",
			RequestorCompInd: "N",
			Available:        true,
			Duration:         12 * time.Second,
			RequestedAt:      created.Add(-time.Minute),
			StartedAt:        created.Add(-50 * time.Second),
			CompletedAt:      created.Add(-38 * time.Second),
			Merchant:         "shop-1",
			Claimable:        true,
			PartialCard:      true,
			Used:             true,
		},
		Challenge: state.ChallengeState{
			NotificationURL: "https://merchant.example/3ds/notify?o=Größe",
			Session:         strings.Repeat("c2Vzc2lvbg==", 40),
			WindowSize:      5,
			MerchantName:    "Café Ω – Zürich",
			Amount:          "123456",
			Currency:        "978",
			PurchaseDate:    "20260329015959",
			OpenedAt:        created.Add(3 * time.Second),
			DecidedAt:       created.Add(time.Minute + time.Nanosecond),
			Interactions:    2,
			Steps:           2,
			WrongOTPs:       1,
			Decision:        "otp",
		},
	}
}

// roundTrip encodes and decodes t.
func roundTrip(t *testing.T, tx state.Transaction) state.Transaction {
	t.Helper()
	rec := Append(nil, &tx)
	got, err := Decode(rec)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return got
}

func TestRecordRoundTrip(t *testing.T) {
	zeroTimes := fullTx()
	zeroTimes.Challenge.OpenedAt, zeroTimes.Challenge.DecidedAt = time.Time{}, time.Time{}
	local := fullTx()
	local.CreatedAt = time.Date(2026, 7, 1, 12, 0, 0, 1, time.Local)
	extremes := fullTx()
	extremes.CreatedAt = time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC) // just after the zero time
	extremes.Challenge.OpenedAt = time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)
	extremes.Challenge.DecidedAt = time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)
	extremes.Challenge.WindowSize = math.MinInt
	extremes.Challenge.Interactions = math.MaxInt
	extremes.Challenge.Steps = math.MinInt
	extremes.Challenge.WrongOTPs = -1
	extremes.PANLength = 255
	extremes.Phase = 255
	extremes.Challenge.Session = strings.Repeat("x", 3<<10) // a long record
	tests := map[string]state.Transaction{
		"full":       fullTx(),
		"zero times": zeroTimes,
		"local":      local,
		"extremes":   extremes,
		"empty":      {},
	}
	for name, tx := range tests {
		t.Run(name, func(t *testing.T) {
			got := roundTrip(t, tx)
			// == on the times too: UTC and time.Local come back exactly.
			if !reflect.DeepEqual(got, tx) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, tx)
			}
			if got.Challenge.OpenedAt.IsZero() != tx.Challenge.OpenedAt.IsZero() {
				t.Errorf("OpenedAt.IsZero = %v, want %v", got.Challenge.OpenedAt.IsZero(), tx.Challenge.OpenedAt.IsZero())
			}
		})
	}
}

// TestRecordTimes checks what a time keeps: the instant always, the
// location exactly for UTC and time.Local, as a fixed zone otherwise; the
// monotonic clock reading is dropped.
func TestRecordTimes(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CEST", 2*3600) // no time zone database
	}
	now := time.Now() // with a monotonic reading
	tests := []time.Time{
		now,
		now.UTC(),
		time.Date(2026, 6, 1, 12, 0, 0, 0, paris),
		time.Date(2026, 6, 1, 12, 0, 0, 5, time.FixedZone("", -(3*3600+30*60))),
		time.Unix(-1, 999_999_999).UTC(),
		{},
		time.Time{}.In(time.Local), // zero too, and comes back as time.Time{}
	}
	for _, want := range tests {
		tx := state.Transaction{CreatedAt: want}
		got := roundTrip(t, tx).CreatedAt
		if !got.Equal(want) || got.IsZero() != want.IsZero() {
			t.Errorf("%v came back as %v", want, got)
		}
		if want.IsZero() {
			continue // its location is not kept
		}
		wantName, wantOffset := want.Zone()
		if name, offset := got.Zone(); name != wantName || offset != wantOffset {
			t.Errorf("%v: zone %s%+d, want %s%+d", want, name, offset, wantName, wantOffset)
		}
		if want.Format(time.RFC3339Nano) != got.Format(time.RFC3339Nano) {
			t.Errorf("%v formats as %s, want %s", want, got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
		}
		if loc := want.Location(); (loc == time.UTC || loc == time.Local) && got != want.Round(0) {
			t.Errorf("%#v came back as %#v, want == without the monotonic reading", want, got)
		}
	}
}

// TestRecordCoversEveryField sets every field of a Transaction, found by
// reflection, to a distinct value and expects it back: a field added to
// Transaction but not to the record fails here.
func TestRecordCoversEveryField(t *testing.T) {
	var tx state.Transaction
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch {
		case v.Type() == reflect.TypeFor[time.Time]():
			v.Set(reflect.ValueOf(time.Date(2000+n, 1, 1, 0, 0, n, n, time.UTC)))
		case v.Type() == reflect.TypeFor[state.Channel]():
			v.SetUint(uint64(state.Channel3RI)) // a channel that is not the zero one
		case v.Kind() == reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case v.Kind() == reflect.String:
			v.SetString(fmt.Sprintf("field-%d", n))
		case v.Kind() == reflect.Bool:
			v.SetBool(true)
		case v.Type() == reflect.TypeFor[time.Duration]():
			v.SetInt(int64(n) * int64(time.Millisecond)) // kept to the millisecond
		case v.CanInt():
			v.SetInt(int64(n))
		case v.CanUint():
			v.SetUint(uint64(n))
		case v.Kind() == reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		default:
			t.Fatalf("field of kind %s: teach the record and this test about it", v.Kind())
		}
	}
	fill(reflect.ValueOf(&tx).Elem())
	if got := roundTrip(t, tx); !reflect.DeepEqual(got, tx) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, tx)
	}
	strs := -1 // the style section keeps Challenge.App apart
	// The method section keeps its strings apart.
	for _, typ := range []reflect.Type{reflect.TypeFor[state.Transaction](), reflect.TypeFor[state.ChallengeState]()} {
		for f := range typ.Fields() {
			if f.Type.Kind() == reflect.String {
				strs++
			}
		}
	}
	strs-- // Challenge.Language lives in its own section
	if strs != numStrings {
		t.Errorf("Transaction has %d string fields, numStrings is %d", strs, numStrings)
	}
}

// TestRecordChannelSection: a transaction of another channel than the
// browser keeps it in a section of two bytes at the end; a browser
// transaction's record is as before channels existed, and a section
// naming the browser or no channel is refused.
func TestRecordChannelSection(t *testing.T) {
	for _, tx := range []state.Transaction{fullTx(), func() state.Transaction { t := fullTx(); t.Method = state.MethodState{}; return t }()} {
		browser := Append(nil, &tx)
		for _, ch := range []state.Channel{state.Channel3RI, state.ChannelApp} {
			tx.Channel = ch
			rec := Append(nil, &tx)
			if len(rec) != len(browser)+2 || string(rec[:len(browser)]) != string(browser) || rec[len(browser)] != channelV1 {
				t.Fatalf("%s: the channel section is not two bytes after the browser's record", ch)
			}
			if got := roundTrip(t, tx); got.Channel != ch || !reflect.DeepEqual(got, tx) {
				t.Errorf("%s: round trip gave channel %s", ch, got.Channel)
			}
			if _, err := Decode(rec[:len(rec)-1]); err == nil {
				t.Errorf("%s: a record cut inside its channel section decoded", ch)
			}
		}
		tx.Channel = state.ChannelBrowser
		if got := roundTrip(t, tx); got.Channel != state.ChannelBrowser {
			t.Errorf("a browser record decoded as %s", got.Channel)
		}
		for _, bad := range []byte{byte(state.ChannelBrowser), 3, 0xff} {
			if _, err := Decode(append(browser[:len(browser):len(browser)], channelV1, bad)); err == nil {
				t.Errorf("a channel section naming %d decoded", bad)
			}
		}
	}
	// The channel section follows the steps section.
	tx := fullTx()
	tx.Channel, tx.Challenge.Steps = state.Channel3RI, tx.Challenge.Interactions+3
	rec := Append(nil, &tx)
	if n := len(rec); rec[n-2] != channelV1 || rec[n-4] != stepsV1 {
		t.Fatalf("the sections end % x, want steps then channel", rec[n-4:])
	}
	if got := roundTrip(t, tx); !reflect.DeepEqual(got, tx) {
		t.Errorf("steps and channel: round trip gave %+v", got)
	}
	swapped := append(append([]byte{}, rec[:len(rec)-4]...), rec[len(rec)-2], rec[len(rec)-1], rec[len(rec)-4], rec[len(rec)-3])
	if _, err := Decode(swapped); err == nil {
		t.Error("a steps section after the channel section decoded")
	}
}

// TestDecodeRejectsDamage checks that a truncated or extended record is
// reported, never decoded wrongly or panicking.
func TestDecodeRejectsDamage(t *testing.T) {
	tx := fullTx()
	rec := Append(nil, &tx)
	noMethod := tx
	noMethod.Method = state.MethodState{}
	old := len(Append(nil, &noMethod)) // a record without its method section is whole
	for n := range len(rec) {
		if n == old {
			continue
		}
		if _, err := Decode(rec[:n]); err == nil {
			t.Fatalf("record cut to %d of %d bytes decoded", n, len(rec))
		}
		_, _ = ReadKeys(rec[:n])
		_, _ = ReadCreatedAt(rec[:n])
	}
	if _, err := Decode(append(rec, 0)); err == nil {
		t.Error("record with a trailing byte decoded")
	}
}

// TestRecordWithoutMethodSection decodes a record as written before the
// method section existed: it reads, with a zero Method, and a transaction
// without a collection still encodes to exactly those bytes.
func TestRecordWithoutMethodSection(t *testing.T) {
	tx := fullTx()
	tx.Method = state.MethodState{}
	rec := Append(nil, &tx)
	withMethod := fullTx()
	if full := Append(nil, &withMethod); len(full) <= len(rec) || string(full[:len(rec)]) != string(rec) {
		t.Fatal("the method section is not a pure suffix of the old layout")
	}
	got, err := Decode(rec)
	if err != nil {
		t.Fatalf("old-layout record: %v", err)
	}
	if !reflect.DeepEqual(got, tx) {
		t.Errorf("old-layout record:\n got %+v\nwant %+v", got, tx)
	}
	for _, bad := range [][]byte{append(rec[:len(rec):len(rec)], 9), append(rec[:len(rec):len(rec)], methodV1)} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("record with a broken method section %x decoded", bad[len(rec):])
		}
	}
}

// TestMethodSectionV1 decodes a method section as version 1 wrote it,
// before the browser's capture: no merchant, no flags, and a collection a
// lookup continued told by its CompInd.
func TestMethodSectionV1(t *testing.T) {
	tx := fullTx()
	tx.Method.Merchant, tx.Method.Claimable, tx.Method.PartialCard, tx.Method.Used = "", false, false, true
	noMethod := tx
	noMethod.Method = state.MethodState{}
	start := len(Append(nil, &noMethod))
	v2 := Append(nil, &tx)
	// Version 1 is version 2 without the merchant's length (0) and flags.
	v1 := append([]byte(nil), v2[:len(v2)-2]...)
	v1[start] = methodV1
	got, err := Decode(v1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Method.Merchant != "" || got.Method.Claimable || got.Method.PartialCard || !got.Method.Used || got.Method.CompInd != "Y" {
		t.Errorf("version 1 section = %+v", got.Method)
	}
	tx.Method.CompInd = ""
	v2 = Append(nil, &tx)
	v1 = append([]byte(nil), v2[:len(v2)-2]...)
	v1[start] = methodV1
	if got, err := Decode(v1); err != nil || got.Method.Used {
		t.Errorf("version 1 without CompInd: Used = %v, %v", got.Method.Used, err)
	}
	bad := append([]byte(nil), Append(nil, &tx)...)
	bad[len(bad)-1] = 0x80
	if _, err := Decode(bad); err == nil {
		t.Error("unknown method flags decoded")
	}
}

// TestRecordGenerationSection: a transaction of a namespace that forgot
// its transactions keeps its generation in a section of its own, after
// the method section when there is one; a record without it reads with
// generation zero, and sections out of order or twice are refused.
func TestRecordGenerationSection(t *testing.T) {
	for _, withMethod := range []bool{true, false} {
		tx := fullTx()
		if !withMethod {
			tx.Method = state.MethodState{}
		}
		plain := Append(nil, &tx)
		tx.Generation = 1_765_000_000_123_456
		rec := Append(nil, &tx)
		if string(rec[:len(plain)]) != string(plain) || rec[len(plain)] != generationV1 {
			t.Fatalf("method %v: the generation section is not a suffix of the record without it", withMethod)
		}
		if got := roundTrip(t, tx); got.Generation != tx.Generation || !reflect.DeepEqual(got, tx) {
			t.Errorf("method %v: round trip got generation %d", withMethod, got.Generation)
		}
		for n := len(plain) + 1; n < len(rec); n++ {
			if _, err := Decode(rec[:n]); err == nil {
				t.Errorf("method %v: record cut inside its generation section (%d of %d bytes) decoded", withMethod, n, len(rec))
			}
		}
		if _, err := Decode(append(rec[:len(rec):len(rec)], generationV1, 1)); err == nil {
			t.Errorf("method %v: a second generation section decoded", withMethod)
		}
	}
	tx := fullTx()
	tx.Method = state.MethodState{}
	noSections := Append(nil, &tx)
	method := Append(nil, ptr(fullTx()))[len(noSections):]
	swapped := append(append(append([]byte{}, noSections...), generationV1, 7), method...)
	if _, err := Decode(swapped); err == nil {
		t.Error("a method section after the generation section decoded")
	}
}

// TestRecordStyleSection: the codes sent again of a challenge live in a
// section of their own, after the generation section; a record without
// it reads with zero resends, and a section out of order is refused.
func TestRecordStyleSection(t *testing.T) {
	tx := fullTx()
	tx.Generation = 9
	plain := Append(nil, &tx)
	tx.Challenge.Resends = 2
	rec := Append(nil, &tx)
	if string(rec[:len(plain)]) != string(plain) || rec[len(plain)] != styleV1 {
		t.Fatal("the style section is not a suffix of the record without it")
	}
	if got := roundTrip(t, tx); got.Challenge.Resends != 2 || !reflect.DeepEqual(got, tx) {
		t.Errorf("round trip got resends %d", got.Challenge.Resends)
	}
	if got, err := Decode(plain); err != nil || got.Challenge.Resends != 0 {
		t.Errorf("record without the section: resends %d, %v", got.Challenge.Resends, err)
	}
	noGen := tx
	noGen.Generation, noGen.Challenge.Resends = 0, 0
	base := Append(nil, &noGen)
	swapped := append(append(append([]byte{}, base...), styleV1, 2), generationV1, 9)
	if _, err := Decode(swapped); err == nil {
		t.Error("a generation section after the style section decoded")
	}
	tx.Challenge.Resends, tx.Challenge.App = 0, "approve"
	if got := roundTrip(t, tx); got.Challenge.App != "approve" || got.Challenge.Resends != 0 {
		t.Errorf("round trip of the app's answer: %q, %d resends", got.Challenge.App, got.Challenge.Resends)
	}
	huge := append(append([]byte{}, base...), styleV1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0)
	if _, err := Decode(huge); err == nil {
		t.Error("a style section with resends beyond an int32 decoded")
	}
}

// TestRecordStepsSection: the page's answers live in a section of their
// own only when they differ from the authentication cycles; a record
// without it (every record written before the two were counted apart,
// when every answer counted as an interaction) reads them as equal.
func TestRecordStepsSection(t *testing.T) {
	tx := fullTx()
	tx.Generation = 9
	tx.Challenge.Steps = tx.Challenge.Interactions
	plain := Append(nil, &tx)
	if got := roundTrip(t, tx); got.Challenge.Steps != tx.Challenge.Interactions || !reflect.DeepEqual(got, tx) {
		t.Errorf("without the section: steps %d, want %d", got.Challenge.Steps, tx.Challenge.Interactions)
	}
	tx.Challenge.Steps = 5
	rec := Append(nil, &tx)
	if string(rec[:len(plain)]) != string(plain) || rec[len(plain)] != stepsV1 {
		t.Fatal("the steps section is not a suffix of the record without it")
	}
	if got := roundTrip(t, tx); got.Challenge.Steps != 5 || got.Challenge.Interactions != 2 || !reflect.DeepEqual(got, tx) {
		t.Errorf("round trip: steps %d, interactions %d; want 5, 2", got.Challenge.Steps, got.Challenge.Interactions)
	}
	tx.Challenge.Resends = 1
	base := Append(nil, &tx)
	swapped := append(append([]byte{}, plain...), stepsV1, 10, styleV1, 1, 0)
	if _, err := Decode(swapped); err == nil {
		t.Error("a style section after the steps section decoded")
	}
	if got, err := Decode(base); err != nil || got.Challenge.Steps != 5 || got.Challenge.Resends != 1 {
		t.Errorf("style and steps sections: steps %d, resends %d, %v", got.Challenge.Steps, got.Challenge.Resends, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestReadKeys(t *testing.T) {
	tx := fullTx()
	rec := Append(nil, &tx)
	k, err := ReadKeys(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(k.NS) != tx.Namespace || string(k.ID) != tx.ThreeDSServerTransID || string(k.Ref) != tx.ExternalReferenceID {
		t.Errorf("keys %q %q %q, want %q %q %q", k.NS, k.ID, k.Ref, tx.Namespace, tx.ThreeDSServerTransID, tx.ExternalReferenceID)
	}
	if created, err := ReadCreatedAt(rec); err != nil || created != tx.CreatedAt {
		t.Errorf("ReadCreatedAt = %v, %v; want %v", created, err, tx.CreatedAt)
	}
}

// FuzzRecord round-trips transactions with arbitrary field values, and
// checks that no prefix of a record decodes.
func FuzzRecord(f *testing.F) {
	f.Add("ns", "id", "ref", "Ω", "", int64(1_780_000_000), uint32(5), uint8(0), 5, 1, uint8(16))
	f.Add("", "日本", "", strings.Repeat("s", 300), "otp", int64(-62135596800), uint32(0), uint8(2), -1, math.MaxInt, uint8(255))
	f.Fuzz(func(t *testing.T, ns, id, ref, a, b string, sec int64, nsec uint32, zone uint8, n1, n2 int, small uint8) {
		created := time.Unix(sec, int64(nsec%1e9))
		switch zone % 4 {
		case 0:
			created = created.UTC()
		case 1: // time.Local already
		case 2:
			created = created.In(time.FixedZone(a, n1%(18*3600)))
		case 3:
			created = time.Time{}
		}
		tx := state.Transaction{
			Namespace: ns, ThreeDSServerTransID: id, ExternalReferenceID: ref,
			ACSTransID: a, DSTransID: b, ScenarioID: a + b, CardScheme: b + a,
			CardBIN: ns, Version: id, Status: ref, StatusReason: a, ECI: b,
			AuthenticationType: ns + a, ChallengeCancel: id + b, WhiteListStatus: ref + a,
			WhiteListStatusSrc: b, ACSReferenceNumber: a, ACSOperatorID: ns,
			CreatedAt: created, Phase: state.Phase(small), PANLength: small ^ 0xff,
			PANLast4: [4]byte{small, small + 1, small + 2, small + 3},
			Challenge: state.ChallengeState{
				NotificationURL: a, Session: b, MerchantName: id, Amount: ref, Currency: ns, PurchaseDate: a, Decision: b,
				WindowSize: n1, Interactions: n2, Steps: n2, WrongOTPs: n1 ^ n2,
				OpenedAt: created.Add(time.Duration(n1)), DecidedAt: time.Unix(int64(n2), 0).UTC(),
			},
		}
		old := len(Append(nil, &tx)) // without a method section
		if small&1 == 1 {
			tx.Method = state.MethodState{
				DDCID: ref, NotificationURL: b, CompInd: a, RequestorCompInd: id, Available: small&2 != 0,
				Merchant: ns, Claimable: small&4 != 0, PartialCard: small&8 != 0, Used: small&16 != 0,
				Duration:    (time.Duration(n1) * time.Millisecond).Truncate(time.Millisecond),
				RequestedAt: time.Unix(int64(n2), 0).UTC(), StartedAt: time.Unix(int64(n1), 5).UTC(),
			}
		}
		whole := map[int]bool{old: true} // the lengths where a cut is a whole record
		if small&32 != 0 {               // an app-channel transaction: a cut before its channel or app section is whole
			whole[len(Append(nil, &tx))] = true
			tx.Channel = state.ChannelApp
			whole[len(Append(nil, &tx))] = true
			tx.App = state.AppState{SDKTransID: id, SDKReferenceNumber: ref, SealedKey: a + b, Enc: b, Counter: n1, MaxTimeout: n2,
				UIType: a, Device: state.DeviceInfo{Platform: "x" + ns, Locale: b}}
		}
		rec := Append(nil, &tx)
		got, err := Decode(rec)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		for _, p := range [][2]*time.Time{{&got.CreatedAt, &tx.CreatedAt}, {&got.Challenge.OpenedAt, &tx.Challenge.OpenedAt}} {
			if !p[0].Equal(*p[1]) || p[0].IsZero() != p[1].IsZero() {
				t.Fatalf("time %v came back as %v", *p[1], *p[0])
			}
			*p[0] = *p[1] // the location may differ (fixed zones): compared above
		}
		if !reflect.DeepEqual(got, tx) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, tx)
		}
		for n := range len(rec) {
			if _, err := Decode(rec[:n]); err == nil && !whole[n] {
				t.Fatalf("record cut to %d of %d bytes decoded", n, len(rec))
			}
		}
	})
}

func BenchmarkEncodeRecord(b *testing.B) {
	tx := fullTx()
	var buf [1024]byte
	for b.Loop() {
		Append(buf[:0], &tx)
	}
}

func BenchmarkDecodeRecord(b *testing.B) {
	tx := fullTx()
	rec := Append(nil, &tx)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordLanguageSection: a challenge's browserInfo.language is kept in
// a section of its own, after the generation section; a record without
// it (every record written before it existed) reads with no language, a
// record cut inside it is refused, and sections out of order are refused.
func TestRecordLanguageSection(t *testing.T) {
	for _, generation := range []uint64{0, 42} {
		tx := fullTx()
		tx.Generation = generation
		plain := Append(nil, &tx)
		tx.Challenge.Language = "th-TH"
		rec := Append(nil, &tx)
		if string(rec[:len(plain)]) != string(plain) || rec[len(plain)] != languageV1 {
			t.Fatalf("generation %d: the language section is not a suffix of the record without it", generation)
		}
		if got := roundTrip(t, tx); !reflect.DeepEqual(got, tx) {
			t.Errorf("generation %d: round trip got language %q", generation, got.Challenge.Language)
		}
		if got, err := Decode(plain); err != nil || got.Challenge.Language != "" {
			t.Errorf("generation %d: a record without the section: language %q, %v", generation, got.Challenge.Language, err)
		}
		for n := len(plain) + 1; n < len(rec); n++ {
			if _, err := Decode(rec[:n]); err == nil {
				t.Errorf("generation %d: record cut inside its language section (%d of %d bytes) decoded", generation, n, len(rec))
			}
		}
		if _, err := Decode(append(rec[:len(rec):len(rec)], generationV1, 1)); err == nil {
			t.Errorf("generation %d: a generation section after the language section decoded", generation)
		}
	}
}
