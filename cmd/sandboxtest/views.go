package sandboxtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The answers of the automation API and of the headless challenge, field
// for field as the sandbox sends them (a test of the package keeps them
// equal to the server's own types).

// TransactionSummary is one transaction of a page of Transactions, and
// the head of a Transaction.
type TransactionSummary struct {
	ThreeDSServerTransID string `json:"threeDsServerTransId"`
	ExternalReferenceID  string `json:"externalReferenceId,omitempty"`
	// Status is the current transStatus; empty for a device data
	// collection whose lookup has not come yet.
	Status string `json:"status"`
	// Final tells whether no later event can change the result.
	Final           bool   `json:"final"`
	StatusReason    string `json:"statusReason,omitempty"`
	ChallengeCancel string `json:"challengeCancel,omitempty"`
	ECI             string `json:"eci,omitempty"`
	CardScheme      string `json:"cardScheme,omitempty"`
	CardBIN         string `json:"cardBin,omitempty"`
	CardLast4       string `json:"cardLast4,omitempty"`
	MaskedPAN       string `json:"maskedCardNumber,omitempty"`
	// ScenarioID is the scenario that answered; Fallback tells that no
	// scenario matched the card and the fallback did.
	ScenarioID     string `json:"scenarioId,omitempty"`
	Fallback       bool   `json:"fallback,omitempty"`
	MessageVersion string `json:"messageVersion,omitempty"`
	// LookupStatus is what the lookup answered (C for a challenge).
	LookupStatus string `json:"lookupStatus,omitempty"`
	// What the lookup told of the purchase.
	CardholderName string `json:"cardholderName,omitempty"`
	MerchantName   string `json:"merchantName,omitempty"`
	Amount         string `json:"amount,omitempty"`
	Currency       string `json:"currency,omitempty"`
	// CreatedAt and UpdatedAt are RFC 3339 times by the token's clock.
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
	// LastEvent is the type of the latest event; EventCount and
	// EnquiryCount count every event and enquiry, dropped ones included.
	LastEvent    string `json:"lastEvent,omitempty"`
	EventCount   int    `json:"eventCount"`
	EnquiryCount int    `json:"enquiryCount"`
}

// Transaction is one transaction with its events, each with the request
// the sandbox received and its answer (see Sent).
type Transaction struct {
	TransactionSummary
	Events []Event `json:"events"`
	// EventsDropped counts the events dropped to bound the history.
	EventsDropped int `json:"eventsDropped,omitempty"`
	// EventsEvicted tells that the journal holds none of its events any
	// more: the summary is the store's.
	EventsEvicted bool `json:"eventsEvicted,omitempty"`
}

// Event is one event of a transaction: collection, methodStart,
// methodCompletion, lookup, creq, otpAttempt, decision, cres, enquiry,
// automaticDecision, timeout, resultCallback.
type Event struct {
	Type string `json:"type"`
	// At is an RFC 3339 time by the token's clock; Status the
	// transaction's status after the event.
	At     string `json:"at"`
	Status string `json:"status,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Request is the API request as the sandbox received it (card
	// numbers masked, long values cut), Response its answer or the final
	// CRes; absent for other events.
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// TransactionList is a page of the token's transactions, newest first.
type TransactionList struct {
	Transactions []TransactionSummary `json:"transactions"`
	// Next is the Cursor of the next page; empty on the last.
	Next string `json:"next,omitempty"`
}

// Clock is the token's clock.
type Clock struct {
	// Offset is how far the token's clock runs ahead of real time, as a
	// Go duration ("11m0s"); OffsetSeconds the same in seconds.
	Offset        string  `json:"offset"`
	OffsetSeconds float64 `json:"offsetSeconds"`
	// Now is the token's now, RFC 3339 in UTC.
	Now string `json:"now"`
	// MaxOffset is the largest offset the clock may reach.
	MaxOffset string `json:"maxOffset"`
}

// ChallengeResult is the answer of the headless challenge: the final CRes
// as the browser would have posted it, or, for a wrong code with
// attempts left, Final false and the page's Message.
type ChallengeResult struct {
	Final       bool   `json:"final"`
	Message     string `json:"message,omitempty"`
	TransStatus string `json:"transStatus"`
	// CRes is the Base64Url CRes; CResJSON the same decoded.
	CRes               string `json:"cres,omitempty"`
	CResJSON           *CRes  `json:"cresJson,omitempty"`
	ThreeDSSessionData string `json:"threeDSSessionData,omitempty"`
	NotificationURL    string `json:"notificationUrl,omitempty"`
}

// CRes is the final challenge response message.
type CRes struct {
	ThreeDSServerTransID   string `json:"threeDSServerTransID"`
	ACSTransID             string `json:"acsTransID"`
	MessageType            string `json:"messageType"`
	MessageVersion         string `json:"messageVersion"`
	ChallengeCompletionInd string `json:"challengeCompletionInd"`
	TransStatus            string `json:"transStatus"`
}

// ErrorBody is the error body of section 2.16 of the interface, with
// every problem found.
type ErrorBody struct {
	Status    string    `json:"status"`
	Error     string    `json:"error"`
	ErrorCode string    `json:"errorCode"`
	EMVError  EMVError  `json:"emvError"`
	Problems  []Problem `json:"problems,omitempty"`
}

// EMVError is the emvError object of an error body.
type EMVError struct {
	Code        string `json:"emvErrorCode"`
	Component   string `json:"emvErrorComponent"`
	Description string `json:"emvErrorDescription"`
	// Detail names the offending fields.
	Detail string `json:"emvErrorDetail"`
}

// Problem is one problem of a refused request.
type Problem struct {
	// Field is the dotted path of the offending field, e.g.
	// "card.cardNumber".
	Field   string `json:"field"`
	EMVCode string `json:"emvErrorCode"`
	Reason  string `json:"reason"`
}

// Event returns the transaction's first event of type typ (e.g.
// "lookup"), or nil.
func (t *Transaction) Event(typ string) *Event {
	for i := range t.Events {
		if t.Events[i].Type == typ {
			return &t.Events[i]
		}
	}
	return nil
}

// Sent reads one field of the request the sandbox received in the
// transaction's first event of type typ that has one, by its dotted path
// (array elements by their index):
//
//	ua, err := tx.Sent("lookup", "browserInfo.userAgent")
//
// A string is returned as it is, any other value as its JSON (a number,
// true, an object). Card numbers are masked, as the sandbox keeps them.
func (t *Transaction) Sent(typ, path string) (string, error) {
	for _, ev := range t.Events {
		if ev.Type == typ && len(ev.Request) > 0 {
			return ev.RequestField(path)
		}
	}
	return "", fmt.Errorf("sandboxtest: transaction %s has no %s event with a request", t.ThreeDSServerTransID, typ)
}

// RequestField reads one field of the event's request by its dotted path,
// as Transaction.Sent does.
func (e *Event) RequestField(path string) (string, error) {
	return field(e.Request, path)
}

// field is the value at the dotted path of the JSON document raw.
func field(raw json.RawMessage, path string) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("sandboxtest: the event has no request")
	}
	v := raw
	for i, key := range strings.Split(path, ".") {
		next, err := member(v, key)
		if err != nil {
			return "", fmt.Errorf("sandboxtest: %s: %w", strings.Join(strings.Split(path, ".")[:i+1], "."), err)
		}
		v = next
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	return string(v), nil
}

// member is the member key of the object v, or the element key (a
// number) of the array v.
func member(v json.RawMessage, key string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil {
		m, ok := obj[key]
		if !ok {
			return nil, errors.New("no such field")
		}
		return m, nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(arr) {
			return nil, fmt.Errorf("no element %q in an array of %d", key, len(arr))
		}
		return arr[i], nil
	}
	return nil, errors.New("not an object or an array")
}
