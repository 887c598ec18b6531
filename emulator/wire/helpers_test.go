package wire

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// baseBody returns the valid lookup request of package examples.
func baseBody(tb testing.TB) []byte {
	tb.Helper()
	return testkit.LookupJSON()
}

// The request-editing helpers are shared with the rule table.
var (
	set  = wiretest.Set
	del  = wiretest.Del
	num  = wiretest.Num
	long = wiretest.Long
)

// edited returns the base request with the edits applied, re-encoded.
func edited(tb testing.TB, edits ...wiretest.Edit) []byte {
	tb.Helper()
	out, err := wiretest.Edited(baseBody(tb), edits...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// asError fails the test unless err is an *emv.Error.
func asError(tb testing.TB, err error) *emv.Error {
	tb.Helper()
	if err == nil {
		tb.Fatal("got no error, want one")
	}
	e, ok := err.(*emv.Error)
	if !ok {
		tb.Fatalf("got error %T (%v), want *emv.Error", err, err)
	}
	return e
}

// hasProblem tells whether e lists a problem of code on field.
func hasProblem(e *emv.Error, code, field string) bool {
	for _, p := range e.Problems {
		if p.EMVCode == code && p.Field == field {
			return true
		}
	}
	return false
}
