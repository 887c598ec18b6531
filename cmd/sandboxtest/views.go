package sandboxtest

import "github.com/threeds-sandbox/threeds-sandbox/web/adminapi"

// The answers of the automation API and of the headless challenge are
// the server's own types (package web/adminapi), field for field as the
// sandbox sends them; go doc shows their fields there.

// TransactionSummary is one transaction of a page of Transactions, and
// the head of a Transaction.
type TransactionSummary = adminapi.TransactionSummary

// Transaction is one transaction with its events, each with the request
// the sandbox received and its answer: Sent reads one field of such a
// request, Event finds an event by its type.
type Transaction = adminapi.Transaction

// Event is one event of a transaction; RequestField reads one field of
// its request.
type Event = adminapi.Event

// TransactionList is a page of the token's transactions, newest first.
type TransactionList = adminapi.TransactionList

// Clock is the token's clock.
type Clock = adminapi.Clock

// ChallengeResult is the answer of the headless challenge: the final CRes
// as the browser would have posted it, or, for a wrong code with
// attempts left, Final false and the page's Message.
type ChallengeResult = adminapi.ChallengeResult

// CRes is the final challenge response message.
type CRes = adminapi.CRes

// ErrorBody is the error body of section 2.16 of the interface, with
// every problem found.
type ErrorBody = adminapi.ErrorBody

// EMVError is the emvError object of an error body.
type EMVError = adminapi.EMVError

// Problem is one problem of a refused request.
type Problem = adminapi.Problem
