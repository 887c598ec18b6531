// Package examples holds sample request bodies of the interface the
// sandbox emulates, as a merchant would send them: the realistic base that
// tests edit, that documentation shows, and that the sandbox serves at
// {base}/examples/ so that a first request needs no checkout. It imports
// nothing of the project, so any package, and the tests of any package,
// may read it.
package examples

import (
	"bytes"
	_ "embed"
	"fmt"
)

//go:embed lookup.json
var lookup []byte

//go:embed lookup-3ri.json
var threeRI []byte

//go:embed ddc.json
var ddc []byte

//go:embed enquiry.json
var enquiry []byte

// Cards and references of the samples: the test cards of the embedded
// default scenarios whose outcome each sample shows, and the
// externalReferenceId each one carries.
const (
	FrictionlessCard = "4000000000009003" // Visa frictionless, status Y
	ChallengeCard    = "4000000000009102" // Visa challenge: OTP 1234 passes
	MethodCard       = "4000000000009409" // Visa 3DS Method for 1s, then frictionless Y

	FrictionlessReference = "ORD-20240611-000123"
	ChallengeReference    = "ORD-20240611-000124"
	ThreeRIReference      = "ORD-20240711-000123"
)

// Lookup returns a valid browser-channel lookup request (section 2.2 of
// the interface document): the frictionless Visa test card
// FrictionlessCard, every optional object filled in. Each call returns a
// fresh copy the caller may change.
func Lookup() []byte { return append([]byte(nil), lookup...) }

// ChallengeLookup returns the lookup of Lookup for the challenge card
// ChallengeCard, with the reference ChallengeReference, so that its
// enquiry by reference does not meet the frictionless sample's
// transaction.
func ChallengeLookup() []byte {
	b := replaceOnce(Lookup(), `"cardNumber": "`+FrictionlessCard+`"`, `"cardNumber": "`+ChallengeCard+`"`)
	return replaceOnce(b, `"externalReferenceId": "`+FrictionlessReference+`"`, `"externalReferenceId": "`+ChallengeReference+`"`)
}

// ThreeRI returns a valid 3RI lookup request (deviceChannel 3, POST
// {base}/authentication/3ri): a recurring charge (threeRIInd 01) of the
// frictionless Visa test card FrictionlessCard, without a cardholder,
// with the reference ThreeRIReference. It names no prior authentication:
// a transaction id of the caller's own goes in
// threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef.
func ThreeRI() []byte { return append([]byte(nil), threeRI...) }

// DDC returns a valid device data collection request (POST
// {base}/authentication/ddc) for MethodCard, whose ACS runs a 3DS Method.
func DDC() []byte { return append([]byte(nil), ddc...) }

// Enquiry returns an enquiry request (section 4.2) by the
// externalReferenceId of Lookup.
func Enquiry() []byte { return append([]byte(nil), enquiry...) }

// replaceOnce replaces the one occurrence of old in b. The samples are
// fixed at build time and a test checks every variant, so a missing or
// repeated occurrence is a programming error.
func replaceOnce(b []byte, old, new string) []byte {
	if n := bytes.Count(b, []byte(old)); n != 1 {
		panic(fmt.Sprintf("examples: %q occurs %d times in the sample lookup, want 1", old, n))
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// Example is one sample body the sandbox serves at {base}/examples/{Name}.
type Example struct {
	// Name is the file name, e.g. "lookup.json".
	Name string `json:"name"`
	// Flow names what the sample shows: frictionless, challenge, 3ri,
	// collection or enquiry.
	Flow string `json:"flow"`
	// Method and Path are the operation the body is sent to, relative to
	// the base URL: POST /authentication/brw.
	Method string `json:"method"`
	Path   string `json:"path"`
	// Description says what the sandbox answers to it.
	Description string `json:"description"`

	body func() []byte
}

// Body returns a fresh copy of the sample's JSON.
func (e Example) Body() []byte { return e.body() }

// All returns every sample, in the order of a first visit: the
// frictionless lookup, the challenge lookup, the 3RI lookup, the device
// data collection, the enquiry.
func All() []Example {
	return []Example{
		{Name: "lookup.json", Flow: "frictionless", Method: "POST", Path: "/authentication/brw", body: Lookup,
			Description: "A lookup with the Visa test card " + FrictionlessCard + ": frictionless, authenticated (status Y, ECI 05)."},
		{Name: "lookup-challenge.json", Flow: "challenge", Method: "POST", Path: "/authentication/brw", body: ChallengeLookup,
			Description: "A lookup with the Visa test card " + ChallengeCard + ": a challenge (status C); the OTP 1234 passes it, 0000 fails it."},
		{Name: "lookup-3ri.json", Flow: "3ri", Method: "POST", Path: "/authentication/3ri", body: ThreeRI,
			Description: "A 3RI lookup (a recurring charge the merchant starts, no cardholder) with the Visa test card " + FrictionlessCard + ": frictionless, authenticated (status Y)."},
		{Name: "ddc.json", Flow: "collection", Method: "POST", Path: "/authentication/ddc", body: DDC,
			Description: "A device data collection for the Visa test card " + MethodCard + ": a 3DS Method that completes in 1s, then a frictionless Y lookup."},
		{Name: "enquiry.json", Flow: "enquiry", Method: "POST", Path: "/enquiry/", body: Enquiry,
			Description: "An enquiry by the externalReferenceId of lookup.json: the result of its transaction."},
	}
}

// Find returns the sample called name.
func Find(name string) (Example, bool) {
	for _, e := range All() {
		if e.Name == name {
			return e, true
		}
	}
	return Example{}, false
}
