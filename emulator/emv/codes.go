package emv

// StatusText describes a transStatus.
var StatusText = map[string]string{
	"Y": "Authentication successful",
	"N": "Not authenticated / transaction denied",
	"U": "Authentication could not be performed",
	"A": "Attempts processing performed",
	"C": "Challenge required",
	"D": "Decoupled challenge confirmed",
	"R": "Authentication rejected",
	"I": "Informational only; challenge preference acknowledged",
}

// ReasonText describes a transStatusReason code (EMV 3DS 2.2.0).
var ReasonText = map[string]string{
	"01": "Card authentication failed",
	"02": "Unknown device",
	"03": "Unsupported device",
	"04": "Exceeds authentication frequency limit",
	"05": "Expired card",
	"06": "Invalid card number",
	"07": "Invalid transaction",
	"08": "No card record",
	"09": "Security failure",
	"10": "Stolen card",
	"11": "Suspected fraud",
	"12": "Transaction not permitted to cardholder",
	"13": "Cardholder not enrolled in service",
	"14": "Transaction timed out at the ACS",
	"15": "Low confidence",
	"16": "Medium confidence",
	"17": "High confidence",
	"18": "Very high confidence",
	"19": "Exceeds ACS maximum challenges",
	"20": "Non-payment transaction not supported",
	"21": "3RI transaction not supported",
	"22": "ACS technical issue",
	"23": "Decoupled authentication required by ACS but not requested by 3DS Requestor",
	"24": "3DS Requestor decoupled max expiry time exceeded",
	"25": "Decoupled authentication provided insufficient time to authenticate cardholder",
	"26": "Authentication attempted but not performed by the cardholder",
}

// ChallengeCancelText describes a challengeCancel code.
var ChallengeCancelText = map[string]string{
	"01": "Cardholder selected Cancel",
	"02": "Reserved for future EMVCo use",
	"03": "Transaction timed out (decoupled authentication)",
	"04": "Transaction timed out at ACS (other timeouts)",
	"05": "Transaction timed out at ACS (first CReq not received)",
	"06": "Transaction error",
	"07": "Unknown",
	"08": "Transaction timed out at SDK",
}

// NextStep tells what a merchant does with a final result.
func NextStep(status, eci string) string {
	switch status {
	case "Y":
		return "Authorise the payment with ECI " + eci + " and the authenticationValue (CAVV/AAV): liability shifts to the issuer."
	case "A":
		return "Authorise the payment with ECI " + eci + " and the attempts authenticationValue: liability usually shifts to the issuer."
	case "I":
		return "Authorise the payment; the challenge preference was acknowledged (exemption), no liability shift."
	case "U":
		return "Authentication was not possible: retry later, or authorise without 3-D Secure at your own risk (no liability shift)."
	case "C":
		return "Send the cardholder to the challenge, then ask the enquiry for the result."
	default:
		return "Do not authorise: the cardholder was not authenticated."
	}
}
