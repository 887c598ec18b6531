// Package adminapi is the JSON of the sandbox's automation API as both
// ends read it: the transactions of a token with the requests the
// sandbox received and its answers, the token's clock, the headless
// challenge's result and the error body every API route answers. The
// server (web) writes these types and the Go client (cmd/sandboxtest)
// reads them, so each field is named once. It imports only the standard
// library: a client takes nothing of the server from it.
package adminapi

import "encoding/json"

// TransactionSummary is one transaction of a page of transactions, and
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
	// Channel is the device channel of the lookup: browser, 3ri or
	// app; ThreeRIInd a 3RI lookup's threeRIInd.
	Channel    string `json:"channel"`
	ThreeRIInd string `json:"threeRIInd,omitempty"`
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
	// more (--journal-size, --journal-bytes): the summary is the store's.
	EventsEvicted bool `json:"eventsEvicted,omitempty"`
}

// Event is one event of a transaction: collection, methodStart,
// methodCompletion, lookup, creq, otpAttempt, passwordAttempt,
// choiceAttempt, codeSent, bankApp,
// oobContinue, decision, cres, enquiry, automaticDecision, timeout,
// resultCallback.
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
	// Next is the cursor of the next page; absent on the last.
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

// CRes is the final challenge response message: the fields of the
// engine's message.CRes, which web converts into it (so the two cannot
// differ in a field); this package repeats them rather than bring the
// engine's packages into a client.
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

// Problem is one problem of a refused request: the fields of the
// engine's emv.Problem, which web converts into it.
type Problem struct {
	// Field is the dotted path of the offending field, e.g.
	// "card.cardNumber".
	Field   string `json:"field"`
	EMVCode string `json:"emvErrorCode"`
	Reason  string `json:"reason"`
}
