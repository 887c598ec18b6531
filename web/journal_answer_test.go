package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
)

// TestJournalKeepsTheAnswerSent: the lookup's answer is encoded once, for
// the merchant and the console's journal both. The journal keeps exactly
// the body the merchant read (without its newline; a challenge's without
// the challengeHtml, kept as data), its card numbers masked, and the
// request masked as package redact masks it; the merchant still reads
// what it sent, and a masked copy never changes the answer already
// written.
func TestJournalKeepsTheAnswerSent(t *testing.T) {
	t.Parallel()
	b := buildSandbox(t, envOptions{journal: true, realClock: true, seed: 1}, "http://127.0.0.1:8080")
	const card = "4111111111111111" // a reference that is a card number
	tests := []struct {
		name, scenario, ref string
		// kept is the part of the body the merchant read that the journal
		// keeps, before it is masked.
		kept func(sent []byte) []byte
	}{
		{"frictionless", scenarioFrictionless, "ORD-7", bytes.Clone},
		{"frictionless, the reference a card number", scenarioFrictionless, card, bytes.Clone},
		{"challenge", scenarioChallenge, "ORD-8", withoutChallengeHTML},
		{"challenge, the reference a card number", scenarioChallenge, card, withoutChallengeHTML},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := lookupWithRef(t, rawLookup(t, tc.scenario), tc.ref)
			rec := serve(b.Server, "/authentication/brw", body)
			if rec.Code != http.StatusOK {
				t.Fatalf("lookup: HTTP %d\n%s", rec.Code, rec.Body)
			}
			sent := bytes.Clone(rec.Body.Bytes())
			var answer struct {
				ID  string `json:"threeDsServerTransId"`
				Ref string `json:"externalReferenceId"`
			}
			if err := json.Unmarshal(sent, &answer); err != nil {
				t.Fatal(err)
			}
			if answer.Ref != tc.ref {
				t.Errorf("the answer's externalReferenceId = %q, want it as sent, %q", answer.Ref, tc.ref)
			}
			entry, ok, err := b.Journal.Get(context.Background(), namespaceOf("bench-team"), answer.ID)
			if err != nil || !ok || len(entry.Events) == 0 {
				t.Fatalf("journal: Get(%s) = %v, %v: want the lookup", answer.ID, ok, err)
			}
			ev := entry.Events[0]
			want := redact.Answer(tc.kept(bytes.TrimSuffix(sent, []byte("\n"))))
			if !bytes.Equal(ev.Response, want) {
				t.Errorf("the journal's answer =\n%s\nwant the one sent, masked:\n%s", ev.Response, want)
			}
			if tc.ref == card && (bytes.Contains(ev.Response, []byte(card)) || !bytes.Contains(ev.Response, []byte(`"411111******1111"`))) {
				t.Errorf("the journal's answer shows the reference %s unmasked:\n%s", card, ev.Response)
			}
			if challenge := tc.scenario == scenarioChallenge; challenge != (ev.Challenge != nil) || challenge && (ev.Challenge.CReq == "" || ev.Challenge.ACSURL == "") {
				t.Errorf("the journal's challenge indication = %+v, want one exactly for a challenge", ev.Challenge)
			}
			if want := redact.JSON(body, redact.Limits{}); !bytes.Equal(ev.Request, want) {
				t.Errorf("the journal's request =\n%s\nwant it redacted:\n%s", ev.Request, want)
			}
			if !bytes.Equal(rec.Body.Bytes(), sent) {
				t.Error("masking the journal's copy changed the answer sent")
			}
		})
	}
}

// lookupWithRef is a lookup body with externalReferenceId set to ref.
func lookupWithRef(t *testing.T, body []byte, ref string) []byte {
	t.Helper()
	out := bytes.Replace(body, []byte(`"ORD-20240611-000123"`), []byte(`"`+ref+`"`), 1)
	if bytes.Equal(out, body) {
		t.Fatal("the example lookup has no externalReferenceId ORD-20240611-000123")
	}
	return out
}

// withoutChallengeHTML is a lookup answer without its challengeHtml
// member, as the journal keeps it (the page is kept as data).
func withoutChallengeHTML(sent []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(sent, &m); err != nil || m["challengeHtml"] == nil {
		return nil // no match: the test fails on it
	}
	key := []byte(`"challengeHtml":`)
	i := bytes.Index(sent, key)
	j := i + len(key) + len(m["challengeHtml"])
	if i < 0 || j >= len(sent) || sent[j] != ',' {
		return nil
	}
	return append(bytes.Clone(sent[:i]), sent[j+1:]...)
}

// TestJournalMasksAnUnknownPan: a lookup whose body has a member pan
// (which the lookup does not define: the decoder ignores it) is journaled
// with that member's value masked, whatever it holds, as package redact
// masks it; one without keeps the same masking of its cardNumber.
func TestJournalMasksAnUnknownPan(t *testing.T) {
	t.Parallel()
	b := buildSandbox(t, envOptions{journal: true, realClock: true, seed: 1}, "http://127.0.0.1:8080")
	plain := rawLookup(t, scenarioFrictionless)
	withPAN := bytes.Replace(plain, []byte(`"card": {`), []byte(`"card": {"pan": "1234567890", `), 1)
	if bytes.Equal(withPAN, plain) {
		t.Fatal(`the example lookup has no "card": {`)
	}
	for _, body := range [][]byte{plain, withPAN} {
		rec := serve(b.Server, "/authentication/brw", body)
		if rec.Code != http.StatusOK {
			t.Fatalf("lookup: HTTP %d\n%s", rec.Code, rec.Body)
		}
		var answer struct {
			ID string `json:"threeDsServerTransId"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatal(err)
		}
		entry, ok, err := b.Journal.Get(context.Background(), namespaceOf("bench-team"), answer.ID)
		if err != nil || !ok || len(entry.Events) == 0 {
			t.Fatalf("journal: Get(%s) = %v, %v: want the lookup", answer.ID, ok, err)
		}
		got := entry.Events[0].Request
		if want := redact.JSON(body, redact.Limits{}); !bytes.Equal(got, want) {
			t.Errorf("the journal's request =\n%s\nwant\n%s", got, want)
		}
		if bytes.Contains(got, []byte("1234567890")) || bytes.Contains(got, []byte("4000000000009003")) {
			t.Errorf("the journal's request shows a card number:\n%s", got)
		}
	}
}
