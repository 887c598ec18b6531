package emulator

import "strings"

// The paths of the browser flows, relative to the public URL. The engine
// builds the absolute URLs it hands out (the ACS form action, the
// hostedChallengeUrl) from them, and the transport routes them: one place
// for both.
const (
	// PathACSChallenge receives the initial CReq (form field creq).
	PathACSChallenge = "/acs/challenge"
	// PathACSHosted, followed by the threeDSServerTransID, is the
	// hostedChallengeUrl.
	PathACSHosted = "/acs/hosted/"
	// PathACSApp, followed by the threeDSServerTransID, is the simulated
	// banking app of an oob challenge: its page (GET), its answer (POST)
	// and, followed by /status, what the challenge page watches.
	PathACSApp = "/acs/app/"
	// PathACSSDK is the acsURL of the app channel: an app's 3DS SDK
	// posts its CReqs there (acs_app.go).
	PathACSSDK = "/acs/sdk"
	// PathACSImages, followed by {mark}-{density}.png, serves the images
	// an app's CRes points at (issuerImage, psImage).
	PathACSImages = "/acs/img/"
	// PathACSDecision receives the cardholder's choice on the challenge page.
	PathACSDecision = "/acs/decision"
	// PathACSNotification receives the final CRes when the lookup had no
	// notificationUrl: the emulator acts as its own 3DS Requestor.
	PathACSNotification = "/acs/notification"
	// PathACSMethod is the ACS's 3DS Method URL: it receives
	// threeDSMethodData in the hidden iframe.
	PathACSMethod = "/acs/method"
	// PathACSMethodDone receives the method page's own post when it has
	// collected; it records the completion and notifies the Requestor.
	PathACSMethodDone = "/acs/method/done"
	// PathDDCCollect receives the device data capture the merchant's
	// checkout posts into a hidden iframe (the real service's form).
	PathDDCCollect = "/V2/ddcCollect"
	// PathDDCMethodNotification is the 3DS server's own
	// threeDSMethodNotificationURL for a capture's 3DS Method.
	PathDDCMethodNotification = "/V2/ddcCollect/method-notification"
	// PathDDCComplete receives the capture page's end: the method notified,
	// or ten seconds passed; the merchant's callbackUrl is notified next.
	PathDDCComplete = "/V2/ddcCollect/complete"
)

// URLs builds the absolute URLs of the browser flows under a public base
// URL, e.g. "https://sandbox.example.com/3ds".
type URLs struct{ base string }

// NewURLs returns the URLs under publicURL (a trailing slash is dropped).
func NewURLs(publicURL string) URLs { return URLs{base: strings.TrimRight(publicURL, "/")} }

// Public is the base URL itself.
func (u URLs) Public() string { return u.base }

// ACSChallenge is where the browser posts the CReq.
func (u URLs) ACSChallenge() string { return u.base + PathACSChallenge }

// Hosted is the hostedChallengeUrl of a transaction.
func (u URLs) Hosted(threeDSServerTransID string) string {
	return u.base + PathACSHosted + threeDSServerTransID
}

// App is the banking app page of a transaction's oob challenge.
func (u URLs) App(threeDSServerTransID string) string {
	return u.base + PathACSApp + threeDSServerTransID
}

// ACSSDK is the acsURL an app's SDK posts its CReqs to.
func (u URLs) ACSSDK() string { return u.base + PathACSSDK }

// Decision is where the challenge page posts the cardholder's choice.
func (u URLs) Decision() string { return u.base + PathACSDecision }

// Notification is the emulator's own notification URL.
func (u URLs) Notification() string { return u.base + PathACSNotification }

// ACSMethod is the 3DS Method URL of every card whose ACS has one.
func (u URLs) ACSMethod() string { return u.base + PathACSMethod }

// ACSMethodDone is where the method page posts when it has collected.
func (u URLs) ACSMethodDone() string { return u.base + PathACSMethodDone }

// DDCCollect is where the merchant's checkout posts the device data
// capture.
func (u URLs) DDCCollect() string { return u.base + PathDDCCollect }

// DDCMethodNotification is the threeDSMethodNotificationURL of a
// capture's 3DS Method.
func (u URLs) DDCMethodNotification() string { return u.base + PathDDCMethodNotification }

// DDCComplete is where the capture page posts its end.
func (u URLs) DDCComplete() string { return u.base + PathDDCComplete }
