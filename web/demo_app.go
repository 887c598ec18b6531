package web

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The demo checkout's app view: the console's server plays what a
// merchant's backend and an app's 3DS SDK do, so that the page can draw
// the native screens of each CRes. The app lookup and every CReq go
// through the same handlers an SDK reaches over HTTP
// (POST /authentication/app, POST /acs/sdk); what the SDK keeps between
// two CReqs (the exchange key, the ids, the counter) travels sealed in the
// page, so that any replica answers the next one.

// demoSDKName names the sealed SDK state; the name is part of the signed
// value, so a session cookie or a challenge state cannot pass for it.
const demoSDKName = "threeds_demo_sdk"

// demoSDKAge is how long a sealed SDK state is taken: the SDK's longest
// sdkMaxTimeout the demo sends, with room.
const demoSDKAge = 15 * time.Minute

// demoSDKReference is the reference number the demo's SDK gives: that of
// Stripe's Android SDK.
const demoSDKReference = "3DS_LOA_SDK_STIN_020100_00142"

// demoSDK is what the demo's SDK keeps between two CReqs.
type demoSDK struct {
	Namespace string `json:"ns"`
	Key       []byte `json:"key"`
	ID        string `json:"id"`
	ACS       string `json:"acs"`
	SDK       string `json:"sdk"`
	Version   string `json:"v"`
	Counter   int    `json:"n"`
	Issued    int64  `json:"iat"`
}

// demoCReqEntries are the members of a CReq the page may send: what a
// native screen's controls give.
var demoCReqEntries = []string{"challengeDataEntry", "challengeHTMLDataEntry", "oobContinue", "resendChallenge",
	"challengeNoEntry", "challengeCancel", "whitelistingDataEntry"}

// demoAppLookupBody is what the page sends: the merchant's fields of an
// app lookup (the SDK's are added by the server) and the device's locale.
type demoAppLookupBody struct {
	Lookup map[string]json.RawMessage `json:"lookup"`
	Locale string                     `json:"locale"`
}

// handleDemoAppLookup serves POST {base}/console/demo/app/lookup: it adds
// the SDK's fields to the page's lookup (its ids, an ephemeral key, the
// device information encrypted to the card's directory server) and sends
// the app lookup; on a challenge it reads acsSignedContent as an SDK does.
// It answers {"status", "request", "response", "sdk"}: the lookup's HTTP
// status, the body sent, the answer, and the sealed SDK state.
func (s *Server) handleDemoAppLookup(w http.ResponseWriter, r *http.Request) {
	var in demoAppLookupBody
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil || in.Lookup == nil {
		s.writeError(w, r, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, `the body must be {"lookup":{…},"locale":"en-US"}`, "lookup"))
		return
	}
	var card struct {
		CardNumber string `json:"cardNumber"`
	}
	_ = json.Unmarshal(in.Lookup["card"], &card)
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("demo SDK key: %w", err))
		return
	}
	enc, err := s.demoDeviceInfo(card.CardNumber, in.Locale)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sdkTransID := newDemoUUID()
	for k, v := range map[string]any{"sdkAppId": newDemoUUID(), "sdkTransId": sdkTransID, "sdkReferenceNumber": demoSDKReference,
		"sdkEphemPubKey": jose.ECPublicJWK(key.PublicKey()), "sdkEncData": string(enc)} {
		raw, err := json.Marshal(v)
		if err != nil {
			s.writeError(w, r, fmt.Errorf("demo SDK field %s: %w", k, err))
			return
		}
		in.Lookup[k] = raw
	}
	body, err := json.Marshal(in.Lookup)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("demo app lookup: %w", err))
		return
	}
	status, answer, _ := s.inProcess(r, s.handleAppLookup, "application/json", body)
	out := map[string]any{"status": status, "request": json.RawMessage(body), "response": rawOrString(answer)}
	var res struct {
		Status           string `json:"status"`
		Version          string `json:"version"`
		ID               string `json:"threeDsServerTransId"`
		ACS              string `json:"acsTransId"`
		ACSSignedContent string `json:"acsSignedContent"`
	}
	if status == http.StatusOK && json.Unmarshal(answer, &res) == nil && res.ACSSignedContent != "" {
		exchange, err := readACSSignedContent(res.ACSSignedContent, key)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		sealed, err := securecookie.EncodeMulti(demoSDKName, demoSDK{Namespace: namespaceOf(r.Context()), Key: exchange, ID: res.ID, ACS: res.ACS,
			SDK: sdkTransID, Version: res.Version, Issued: time.Now().Unix()}, s.state[0])
		if err != nil {
			s.writeError(w, r, fmt.Errorf("seal the demo SDK: %w", err))
			return
		}
		out["sdk"] = sealed
	}
	respond.JSON(w, http.StatusOK, out)
}

// demoDeviceInfo is sdkEncData of an Android phone in locale, encrypted
// to the directory server of card's scheme (else Stripe's test server).
func (s *Server) demoDeviceInfo(card, locale string) ([]byte, error) {
	dir := s.cfg.Engine.Directory()
	ds, ok := dir.ForScheme(s.cfg.Engine.Schemes().Scheme(card))
	if !ok {
		if ds, ok = dir.ForID("F055545342"); !ok {
			return nil, fmt.Errorf("demo app lookup: no directory server for card scheme %s", s.cfg.Engine.Schemes().Scheme(card))
		}
	}
	if len(locale) > 16 {
		locale = locale[:16]
	}
	plain, err := json.Marshal(map[string]any{"DV": "1.6", "DD": map[string]string{"C001": "Android", "C002": "Demo phone", "C003": "Android",
		"C004": "15", "C005": locale, "C006": "UTC"}, "DPNA": map[string]string{}, "SW": []string{}})
	if err != nil {
		return nil, fmt.Errorf("demo device information: %w", err)
	}
	enc, err := jose.EncryptSDKEncData(plain, ds.EncryptionKey, ds.ID)
	if err != nil {
		return nil, fmt.Errorf("demo sdkEncData: %w", err)
	}
	return enc, nil
}

// readACSSignedContent reads acsSignedContent as an SDK does and derives
// the exchange key from the ACS's ephemeral key.
func readACSSignedContent(signed string, key *ecdh.PrivateKey) ([]byte, error) {
	jws, err := jose.ParseJWS([]byte(signed))
	if err != nil {
		return nil, fmt.Errorf("demo: acsSignedContent: %w", err)
	}
	var p struct {
		ACSEphemPubKey jose.JWK `json:"acsEphemPubKey"`
	}
	if err := json.Unmarshal(jws.Payload, &p); err != nil {
		return nil, fmt.Errorf("demo: acsSignedContent's payload: %w", err)
	}
	acs, err := p.ACSEphemPubKey.ECPublicKey()
	if err != nil {
		return nil, fmt.Errorf("demo: acsEphemPubKey: %w", err)
	}
	k, err := jose.DeriveKey(key, acs, demoSDKReference)
	if err != nil {
		return nil, fmt.Errorf("demo: the exchange key: %w", err)
	}
	return k, nil
}

// handleDemoAppCReq serves POST {base}/console/demo/app/creq: {"sdk":
// sealed state, "entry": {member: value}} in; the SDK's next CReq sent
// to the ACS, encrypted; {"creq", "cres" or "erro", "sdk"} out, the CRes
// decrypted and the state for the CReq after it.
func (s *Server) handleDemoAppCReq(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SDK   string         `json:"sdk"`
		Entry map[string]any `json:"entry"`
	}
	var st demoSDK
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil {
		s.writeError(w, r, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, `the body must be {"sdk":"…","entry":{…}}`, "sdk"))
		return
	}
	if err := securecookie.DecodeMulti(demoSDKName, in.SDK, &st, s.state...); err != nil || st.Namespace != namespaceOf(r.Context()) ||
		time.Since(time.Unix(st.Issued, 0)) > demoSDKAge {
		s.writeError(w, r, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "sdk is not a state this demo gave, or it has expired: run the purchase again", "sdk"))
		return
	}
	creq := map[string]any{"threeDSServerTransID": st.ID, "acsTransID": st.ACS, "sdkTransID": st.SDK,
		"messageType": "CReq", "messageVersion": st.Version, "sdkCounterStoA": fmt.Sprintf("%03d", st.Counter)}
	for _, k := range demoCReqEntries {
		if v, ok := in.Entry[k]; ok {
			creq[k] = v
		}
	}
	plain, err := json.Marshal(creq)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("demo CReq: %w", err))
		return
	}
	body, err := jose.EncryptDirect(plain, st.Key, jose.A128CBCHS256, st.ACS, jose.SDKToACS, uint8(st.Counter))
	if err != nil {
		s.writeError(w, r, fmt.Errorf("demo CReq: %w", err))
		return
	}
	_, answer, ct := s.inProcess(r, s.handleSDK, "application/jose; charset=UTF-8", body)
	out := map[string]any{"creq": json.RawMessage(plain)}
	if media, _, _ := mime.ParseMediaType(ct); media == "application/jose" {
		jwe, err := jose.ParseJWE(answer)
		if err == nil {
			answer, err = jwe.DecryptDirect(st.Key, jose.ACSToSDK)
		}
		if err != nil {
			s.writeError(w, r, fmt.Errorf("demo: the CRes does not decrypt: %w", err))
			return
		}
		out["cres"] = json.RawMessage(answer)
		st.Counter++
		if st.Counter < 256 {
			if out["sdk"], err = securecookie.EncodeMulti(demoSDKName, st, s.state[0]); err != nil {
				s.writeError(w, r, fmt.Errorf("seal the demo SDK: %w", err))
				return
			}
		}
	} else {
		out["erro"] = rawOrString(answer)
	}
	respond.JSON(w, http.StatusOK, out)
}

// inProcess runs handler h on a copy of r with body and Content-Type ct,
// as if the request had come over HTTP: the demo's server calls the
// sandbox's own operations as a backend and an SDK would. It returns the
// status, the body and the Content-Type of the answer.
func (s *Server) inProcess(r *http.Request, h http.HandlerFunc, ct string, body []byte) (int, []byte, string) {
	in := r.Clone(r.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.Header.Set("Content-Type", ct)
	rec := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	h(rec, in)
	return rec.status, rec.body.Bytes(), rec.header.Get("Content-Type")
}

// bufferedResponse keeps an answer in memory.
type bufferedResponse struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}

// rawOrString is an answer as JSON when it is JSON, else as a string.
func rawOrString(b []byte) any {
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	return string(b)
}

// newDemoUUID is a random (version 4) UUID.
func newDemoUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := fmt.Sprintf("%x", b)
	return strings.Join([]string{h[:8], h[8:12], h[12:16], h[16:20], h[20:]}, "-")
}
