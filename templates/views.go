package templates

import "html/template"

// Purposes of an autosubmit page (AutoSubmit.Purpose): each has its own
// title and message in every language.
const (
	SubmitCReq       = "creq"        // the challengeHtml posting the initial CReq to the ACS
	SubmitCRes       = "cres"        // the final CRes going back to the merchant
	SubmitMethod     = "method"      // the 3DS Method collecting device data
	SubmitMethodDone = "method-done" // the 3DS Method notifying the merchant
)

// Kinds of an error page (ErrorPage.Kind).
const (
	ErrorChallenge = "challenge" // an error on the ACS's pages: "Challenge error 301"
	ErrorSandbox   = "sandbox"   // any other: "Sandbox error 301"
)

// Field is one hidden input of an auto-submitted form.
type Field struct {
	Name  string
	Value string
}

// AutoSubmit is the view of the "autosubmit" page: a form posted on load to
// Action, with a visible Continue button for browsers without JavaScript.
// It carries the initial CReq to the ACS (fields creq and
// threeDSSessionData) and the final CRes to the notification URL (fields
// cres and threeDSSessionData).
type AutoSubmit struct {
	// Lang is the language of the page's texts and of <html lang>.
	Lang Lang
	// Purpose chooses the page's title and message when Title and
	// Message are empty: one of the Submit constants, or empty for a
	// plain "Processing".
	Purpose string
	// Nonce is the CSP nonce; empty renders the style and script elements
	// without one (for challengeHtml, which the merchant page embeds).
	Nonce string
	// Action is the absolute URL the form posts to.
	Action string
	// Fields are the hidden inputs, in order.
	Fields []Field
	// Title, when set, is the document title and heading instead of the
	// Purpose's; it is shown as it is, in no particular language.
	Title string
	// Message, when set, is the line shown under the heading while the
	// form posts, instead of the Purpose's.
	Message string
	// DelayMS holds the post back for this many milliseconds (the 3DS
	// Method page "collects" for that long); 0 posts at once.
	DelayMS int64
}

// ChallengePage is the view of the "challenge" page: the emulated issuer's
// one-time password page. Every control sits in one form posted to
// FormAction; the pressed button arrives as the field action with the value
// otp, pass, fail or cancel, the typed code as otp, and State unchanged as
// state.
type ChallengePage struct {
	// Lang is the language of the page's texts and of <html lang>.
	Lang Lang
	// Nonce is the CSP nonce of the style and script elements.
	Nonce string
	// FormAction is the URL the form posts to.
	FormAction string
	// State is the opaque signed token of the challenge, posted back as the
	// hidden input "state".
	State string
	// MerchantName is shown in the purchase summary when set.
	MerchantName string
	// Amount is the purchase amount as displayed, e.g. "49.99"; the amount
	// row is left out when empty (non-payment authentications).
	Amount string
	// Currency follows the amount, e.g. "EUR".
	Currency string
	// MaskedPAN is the card number as displayed, e.g. "•••• 1091".
	MaskedPAN string
	// Date is the purchase date as displayed; the row is left out when empty.
	Date string
	// Brand presents the card scheme in the header: its programme's name,
	// its mark and its colours.
	Brand Brand
	// WindowSize is the challengeWindowSize, 1 to 5; the layout adapts to it.
	WindowSize int
	// Width and Height are the window size in pixels, 0 for full screen.
	Width, Height int
	// UI is the challenge's style: the page renders the template
	// challenge-<UI> (html/challenge-<UI>.tmpl) as its body; "" is otp.
	UI string
	// Style is the style's own part of the page, as the engine made it
	// (emulator.OTPView, SelectView, OOBView…): the template
	// challenge-<UI> reads it as .Style.
	Style any
	// AppURL is the banking app page of the transaction (ui oob), shown
	// as a link and as AppQR, an inline SVG QR code of it.
	AppURL string
	AppQR  template.HTML
	// TrustPrompt offers "trust this merchant" (a checkbox posted as
	// trust=Y), above any style's part.
	TrustPrompt bool
	// Version is the protocol version of the transaction, e.g. "2.2.0".
	Version string
	// Notice names the message of a page shown again (emulator.Notice*:
	// wrong-code, code-sent, not-approved…), which the style's template
	// says in the page's language; WrongCode is Notice wrong-code, the
	// last code (or answer) wrong while AttemptsLeft may still be given.
	Notice       string
	WrongCode    bool
	AttemptsLeft int
	// Message, when WrongCode is false, is shown above the code field as
	// an alert, as it is, in no particular language.
	Message string
	// ExpiresMinutes says how many minutes the challenge stays open; 0
	// says less than a minute.
	ExpiresMinutes int
}

// Result is the view of the "result" page, shown when the lookup had no
// notificationUrl and the emulator receives the final CRes itself.
type Result struct {
	// Lang is the language of the page's texts and of <html lang>. The
	// EMV texts (StatusText, ReasonText, CancelText, NextStep) stay in
	// English and are marked so.
	Lang Lang
	// Nonce is the CSP nonce of the style element.
	Nonce string
	// Status is the transStatus, one letter; Y shows green, N red, any
	// other amber.
	Status string
	// StatusText is the meaning of Status, e.g. "Authenticated".
	StatusText string
	// ECI is the electronic commerce indicator; empty when absent.
	ECI string
	// StatusReason is the transStatusReason code; empty when absent.
	StatusReason string
	// ReasonText is the meaning of StatusReason.
	ReasonText string
	// ChallengeCancel is the challengeCancel code; empty when absent.
	ChallengeCancel string
	// CancelText is the meaning of ChallengeCancel.
	CancelText string
	// ThreeDSServerTransID identifies the transaction for the enquiry.
	ThreeDSServerTransID string
	// ExternalReferenceID is the merchant's reference of the lookup.
	ExternalReferenceID string
	// NextStep says what the merchant would do next, e.g.
	// "Authorise with ECI 05 and the CAVV".
	NextStep string
	// CRes is the decoded final CRes, pretty-printed JSON.
	CRes string
}

// ErrorPage is the view of the "error" page: a failure told in EMV terms.
type ErrorPage struct {
	// Lang is the language of the page's texts and of <html lang>. The
	// EMV texts (EMVDescription, Message) stay in English and are marked
	// so.
	Lang Lang
	// Kind chooses the title when Title is empty and there is an
	// EMVErrorCode: ErrorChallenge or ErrorSandbox; otherwise the title
	// is "Something went wrong" in Lang.
	Kind string
	// Nonce is the CSP nonce of the style element.
	Nonce string
	// Title, when set, is the document title and heading instead of the
	// one Kind chooses, as it is.
	Title string
	// EMVErrorCode is the three-digit EMV error code, e.g. "301".
	EMVErrorCode string
	// EMVDescription is the EMV name of the code, e.g.
	// "Transaction ID Not Recognized".
	EMVDescription string
	// Message says in plain words what happened.
	Message string
	// Detail is the emvErrorDetail, e.g. the offending field names.
	Detail string
	// HTTPStatus is the status code the page is served with; 0 hides it.
	HTTPStatus int
}

// Done is the view of the "done" page: the challenge is over and the
// window may be closed.
type Done struct {
	// Lang is the language of the page's texts and of <html lang>.
	Lang Lang
	// Nonce is the CSP nonce of the style element.
	Nonce string
	// Message replaces the default "You may close this window." when set.
	Message string
}

// Brand is how the challenge page presents a card scheme (the web layer
// fills it from the scenarios' list of schemes).
type Brand struct {
	// Program is the scheme's 3-D Secure programme, e.g. "Visa Secure".
	Program string
	// Mark is the short mark drawn in the header; empty for Mastercard,
	// whose mark is its two circles.
	Mark string
	// Style is the key of the colours: CSS class scheme-<Style>.
	Style string
}

// BankApp is the view of the "bank-app" page: the simulated banking app
// of an oob challenge, where the cardholder approves or declines.
type BankApp struct {
	// Lang is the language of the page's texts and of <html lang>.
	Lang  Lang
	Nonce string
	// FormAction is where Approve and Decline post (field action).
	FormAction string
	// MerchantName, Amount, Currency and MaskedPAN describe the purchase.
	MerchantName, Amount, Currency, MaskedPAN string
	// Answer is the app's answer so far: approve, decline, or "".
	Answer string
	// Final tells that the transaction has ended, with Status.
	Final  bool
	Status string
}
