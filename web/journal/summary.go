package journal

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Summary describes one transaction in a listing.
type Summary struct {
	// ID is the threeDSServerTransID.
	ID string
	// Created is the time of the transaction's first event.
	Created time.Time
	// Updated is the time of its latest event.
	Updated time.Time
	// Status is the transaction status after the latest event that had one.
	Status string
	// LastEvent is the kind of the latest event.
	LastEvent emulator.EventKind
	// Events counts every event recorded, dropped ones included.
	Events int
	// Enquiries counts the enquiries answered.
	Enquiries int

	// The fields below come from the lookup; empty when it was not seen.

	// MaskedPAN is the card number of the lookup, masked (first six and
	// last four digits).
	MaskedPAN string
	// CardBIN is the card's BIN as the lookup response reports it.
	CardBIN string
	// Scheme is the card scheme of the lookup response, e.g. "VISA".
	Scheme string
	// CardholderName is card.cardholderName of the lookup.
	CardholderName string
	// MerchantName is merchantName of the lookup.
	MerchantName string
	// Amount and Currency are purchase.amount and purchase.currencyCode.
	Amount, Currency string
	// ExternalReferenceID is the Requestor's reference of the lookup.
	ExternalReferenceID string
	// LookupStatus is the status the lookup answered, e.g. "C" or "Y".
	LookupStatus string
	// ECI is the ECI of the latest answer that carried one.
	ECI string
}

// Entry is one transaction with its history.
type Entry struct {
	Summary
	// Events are the recorded events, oldest first.
	Events []Event
	// Dropped counts the events dropped to bound the history.
	Dropped int
}

// Event is one step of a transaction's history.
type Event struct {
	Kind   emulator.EventKind
	Time   time.Time
	Status string
	Detail string
	// Request and Response are the JSON bodies of API events, card
	// numbers masked; nil for the others. Callers must not modify them.
	Request, Response []byte
	// SincePrevious is the time since the event before (0 for the first);
	// SinceStart the time since the first event. Set by Journal.Get.
	SincePrevious, SinceStart time.Duration
}

// fromLookup fills the summary from the lookup's bodies.
func (s *Summary) fromLookup(req, resp []byte) {
	var rq struct {
		ExternalReferenceID string `json:"externalReferenceId"`
		MerchantName        string `json:"merchantName"`
		Card                struct {
			CardNumber     string `json:"cardNumber"`
			CardholderName string `json:"cardholderName"`
		} `json:"card"`
		Purchase struct {
			Amount       json.RawMessage `json:"amount"`
			CurrencyCode string          `json:"currencyCode"`
		} `json:"purchase"`
	}
	if json.Unmarshal(req, &rq) == nil {
		s.ExternalReferenceID = rq.ExternalReferenceID
		s.MerchantName = rq.MerchantName
		s.MaskedPAN = maskPAN(rq.Card.CardNumber)
		s.CardholderName = rq.Card.CardholderName
		s.Amount = strings.Trim(string(rq.Purchase.Amount), `"`)
		s.Currency = rq.Purchase.CurrencyCode
	}
	var rs struct {
		Status     string `json:"status"`
		CardScheme string `json:"cardScheme"`
		CardBIN    string `json:"cardBin"`
		ECI        string `json:"eci"`
	}
	if json.Unmarshal(resp, &rs) == nil {
		s.LookupStatus = rs.Status
		s.Scheme = rs.CardScheme
		s.CardBIN = rs.CardBIN
		s.ECI = rs.ECI
	}
	if s.CardBIN == "" && len(s.MaskedPAN) >= 6 && !strings.Contains(s.MaskedPAN[:6], "*") {
		s.CardBIN = s.MaskedPAN[:6]
	}
}

// cardField finds the card number fields of a JSON body.
var cardField = regexp.MustCompile(`"(cardNumber|acctNumber|pan)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)

// Mask returns a copy of a JSON body with the value of every cardNumber,
// acctNumber and pan field masked to its first six and last four digits
// (all of it for shorter values, or values written with JSON escapes).
// Values already masked are left as they are. nil stays nil.
func Mask(body []byte) []byte {
	if body == nil {
		return nil
	}
	return cardField.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := cardField.FindSubmatch(m)
		var out bytes.Buffer
		out.WriteString(`"`)
		out.Write(sub[1])
		out.WriteString(`"`)
		out.Write(sub[2])
		out.WriteString(`"`)
		if bytes.IndexByte(sub[3], '\\') >= 0 {
			out.WriteString("****")
		} else {
			out.WriteString(maskPAN(string(sub[3])))
		}
		out.WriteString(`"`)
		return out.Bytes()
	})
}

// maskPAN keeps the first six and last four digits of a card number of 11
// digits or more and masks every other digit; a shorter value is masked
// whole.
func maskPAN(pan string) string {
	if strings.Contains(pan, "*") {
		return pan
	}
	digits := 0
	for _, r := range pan {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	var b strings.Builder
	i := 0
	for _, r := range pan {
		if r < '0' || r > '9' {
			b.WriteRune(r)
			continue
		}
		if digits >= 11 && (i < 6 || i >= digits-4) {
			b.WriteRune(r)
		} else {
			b.WriteByte('*')
		}
		i++
	}
	return b.String()
}
