package templates

// The pages of the device data capture, in the merchant's hidden iframe.
const (
	PageDDCMethod       = "ddc-method"        // view DDCMethod
	PageDDCMethodNotify = "ddc-method-notify" // view DDCMethodNotify
	PageDDCCallback     = "ddc-callback"      // view DDCCallback
)

// DDCMethod is the capture page that runs the ACS's 3DS Method in a
// nested hidden iframe (posting MethodData to MethodURL) and posts State
// to CompleteURL when the method notifies, or after TimeoutMS.
type DDCMethod struct {
	Nonce                string
	DDCID                string
	ThreeDSServerTransID string
	MethodURL            string
	MethodData           string
	CompleteURL          string
	// State is the signed state of the capture, posted back unchanged.
	State          string
	TimeoutMS      int64
	TimeoutSeconds int64
}

// DDCMethodNotify is the 3DS server's threeDSMethodNotificationURL page:
// it tells its parent, the capture page, that the method notified.
type DDCMethodNotify struct {
	Nonce                string
	ThreeDSServerTransID string
	// Error says why the notification is not understood; the parent is
	// then not told.
	Error string
}

// DDCCallback is the capture's end: it posts Message to the parent
// window (the merchant's checkout) for TargetOrigin, then, when
// CallbackURL is set, posts Fields to it.
type DDCCallback struct {
	Nonce string
	// Status is "completed" or "failed"; Failed says the latter.
	Status string
	Failed bool
	// Error is the failure in words, shown on the page.
	Error       string
	CallbackURL string
	Fields      []Field
	// Message is the JSON text posted to the parent window, as a string
	// (Cardinal's profile.completed message, which its listeners
	// JSON.parse); TargetOrigin the origin it may go to ("*" when
	// callbackUrl gave none).
	Message      string
	TargetOrigin string
}
