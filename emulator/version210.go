package emulator

// reasons210 maps the transStatusReason codes that 2.2.0 added to the
// closest code 2.1.0 knows, so a 2.1.0 transaction never carries them.
var reasons210 = map[string]string{
	"22": "07", // ACS technical issue -> invalid transaction
	"23": "12", // decoupled required -> not permitted to cardholder
	"24": "12",
	"25": "12",
	"26": "01", // attempted, not performed by the cardholder -> authentication failed
}

// downgrade210 replaces what protocol 2.1.0 lacks, when the scenario says
// nothing of 2.1.0 (on210): status I (new in 2.2.0) becomes U with reason
// 07, a result without an authentication value that leaves the merchant
// as I does (authorise, no liability shift): an informational outcome
// must never turn into proof of authentication; and the reasons 22-26
// become their closest 2.1.0 code.
func downgrade210(status, reason string) (string, string) {
	if status == "I" {
		return "U", "07"
	}
	if r, ok := reasons210[reason]; ok {
		reason = r
	}
	return status, reason
}
