// Package memstore keeps everything the sandbox keeps beyond a request in
// this process: the transactions and their externalReferenceId index
// (Store), the runtime scenarios of each token (Runtime), each token's
// clock and forgetting (Namespaces), the console's journal (Journal) and
// its sign-in sessions (Sessions), the merchants' ddcIds and used JWT ids
// (Captures), the result callbacks' registrations and outbox (Callbacks).
// It is the
// embedded default: `go run` needs nothing else. Each part is bounded in
// count and in bytes, and passes the same contract tests (package
// statetest) as its twin in package redisstore.
package memstore
