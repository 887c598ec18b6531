package templates

// The cardholder pages the tests render in every language at every
// challengeWindowSize (the text tests here), and the accessibility sweep
// in Chromium checks where its findings can differ (a11y_browser_test.go,
// with -tags full, see sweptAt).

// windowSize is a challengeWindowSize value and the viewport it is tried
// in.
type windowSize struct {
	size          int
	width, height int64
}

// windowSizes are the challengeWindowSize values and the viewport each is
// tried in: the iframe sizes of the protocol, and a desktop window for 05
// (full page).
var windowSizes = []windowSize{
	{1, 250, 400},
	{2, 390, 400},
	{3, 500, 600},
	{4, 600, 400},
	{5, 1280, 800},
}

// cardholderPage is one page a cardholder may see, with the view it is
// rendered from in a language at a challengeWindowSize. A new page or a
// new style's page is one more line of cardholderPages.
type cardholderPage struct {
	name string
	page string // a Page constant
	view func(lang Lang, size int) any
}

// sink is the path the test server answers 204 to: where the autosubmit
// pages post, so that the browser stays on them.
const sink = "/sink"

// cardholderPages are the pages the accessibility, size and language
// tests run on: the text tests in every language at every window size,
// the accessibility sweep where sweptAt says.
var cardholderPages = []cardholderPage{
	{"challenge", PageChallenge, func(l Lang, size int) any { return challengeAt(l, size, func(*ChallengePage) {}) }},
	{"challenge-wrong-code", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) { v.WrongCode, v.AttemptsLeft = true, 2 })
	}},
	{"challenge-long-texts", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.MerchantName = "Internationale Versandbuchhandlung Großhandelsgesellschaft mbH & Co. KG"
			v.Amount, v.Currency = "1234567.89", "THB"
			v.Brand = Brand{Program: "Mastercard Identity Check", Style: "mastercard"}
			v.Style, v.ExpiresMinutes = otpView{PassingOTP: "12345678", ResendsLeft: 3}, 1
		})
	}},
	{"challenge-no-purchase", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.MerchantName, v.Amount, v.Date, v.Style, v.ExpiresMinutes = "", "", "", otpView{}, 0
			v.Brand = Brand{Program: "3-D Secure", Mark: "3DS", Style: "generic"}
		})
	}},
	{"challenge-otp-resent-trust", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.Notice, v.Style, v.TrustPrompt = "code-sent", otpView{PassingOTP: "1234", ResendsLeft: 2}, true
		})
	}},
	{"challenge-oob", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.AppURL, v.AppQR = "oob", oobView{}, sink+"/app", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21" role="img" aria-label="QR"><rect width="21" height="21" fill="#fff"/></svg>`
		})
	}},
	{"challenge-oob-not-yet", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.AppURL, v.Notice = "oob", oobView{}, sink+"/app", "not-approved"
		})
	}},
	{"challenge-select-wrong", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.Notice, v.WrongCode, v.AttemptsLeft = "select", selectView{Choices: []string{"Lyon", "Porto", "Chiang Mai", "Bremerhaven-Geestemünde"}, Stated: "Porto"}, "wrong-code", true, 2
		})
	}},
	{"challenge-password-wrong", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.Notice, v.WrongCode, v.AttemptsLeft = "password", passwordView{Password: "Tr0ub4dor!"}, "wrong-code", true, 2
		})
	}},
	{"challenge-multiselect", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style = "multiselect", selectView{Multi: true, Choices: []string{"Corner Bakery", "Bookshop", "Garden Centre", "Cycle Repairs", "Café", "Pharmacy"}, Stated: "Bookshop; Café"}
		})
	}},
	{"bank-app", PageBankApp, func(l Lang, _ int) any {
		return BankApp{Lang: l, Nonce: "n0nce", FormAction: sink, MerchantName: "Sandbox Coffee", Amount: "49.99", Currency: "EUR", MaskedPAN: "•••• 1091"}
	}},
	{"bank-app-approved", PageBankApp, func(l Lang, _ int) any {
		return BankApp{Lang: l, Nonce: "n0nce", FormAction: sink, MerchantName: "Sandbox Coffee", Answer: "approve"}
	}},
	{"submit-creq", PageAutoSubmit, func(l Lang, _ int) any {
		return AutoSubmit{Lang: l, Nonce: "n0nce", Purpose: SubmitCReq, Action: sink, DelayMS: 60_000, Fields: []Field{{"creq", "eyJhIjoiYiJ9"}}}
	}},
	{"submit-cres", PageAutoSubmit, func(l Lang, _ int) any {
		return AutoSubmit{Lang: l, Nonce: "n0nce", Purpose: SubmitCRes, Action: sink, DelayMS: 60_000, Fields: []Field{{"cres", "eyJhIjoiYiJ9"}}}
	}},
	{"result", PageResult, func(l Lang, _ int) any {
		return Result{Lang: l, Nonce: "n0nce", Status: "N", StatusText: "Not authenticated", StatusReason: "01", ReasonText: "Card authentication failed",
			ChallengeCancel: "01", CancelText: "Cardholder selected Cancel", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
			ExternalReferenceID: "ORD-20240611-000123-with-a-long-reference-without-spaces", NextStep: "Do not authorise",
			CRes: "{\n  \"threeDSServerTransID\": \"8a880dc0-d2d2-4067-bcb1-b08d1690b26e\",\n  \"transStatus\": \"N\"\n}"}
	}},
	{"result-y", PageResult, func(l Lang, _ int) any {
		return Result{Lang: l, Nonce: "n0nce", Status: "Y", StatusText: "Authenticated", ECI: "05", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}
	}},
	{"error", PageError, func(l Lang, _ int) any {
		return ErrorPage{Lang: l, Nonce: "n0nce", Kind: ErrorChallenge, EMVErrorCode: "305", EMVDescription: "Transaction Data Not Valid",
			Message: "the challenge of transaction 8a880dc0-d2d2-4067-bcb1-b08d1690b26e is finished", Detail: "threeDSServerTransID", HTTPStatus: 409}
	}},
	{"done", PageDone, func(l Lang, _ int) any { return Done{Lang: l, Nonce: "n0nce"} }},
}

// challengeAt is the challenge page's view in lang at window size, changed
// by edit.
func challengeAt(lang Lang, size int, edit func(*ChallengePage)) ChallengePage {
	v := challengeView()
	v.Lang, v.WindowSize, v.FormAction = lang, size, sink
	v.Width, v.Height = 0, 0
	for _, w := range windowSizes {
		if w.size == size && size != 5 {
			v.Width, v.Height = int(w.width), int(w.height)
		}
	}
	edit(&v)
	return v
}
