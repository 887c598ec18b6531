package message

// This file holds the messages of the app channel's CReq/CRes exchange
// after decryption: the interim and final CRes the ACS encrypts for the
// 3DS SDK, and the Erro either side sends in plain JSON. Their member
// names are EMV's (threeDSServerTransID, acsCounterAtoS...), not the
// interface's camel case of the lookup.

// AppCRes is an interim CRes of the app channel (challengeCompletionInd
// N): one screen of the SDK's native challenge, or an HTML page (acsUiType
// 05). The members an acsUiType does not use are left out.
type AppCRes struct {
	ThreeDSServerTransID   string `json:"threeDSServerTransID"`
	ACSTransID             string `json:"acsTransID"`
	SDKTransID             string `json:"sdkTransID"`
	ACSCounterAtoS         string `json:"acsCounterAtoS"`
	MessageType            string `json:"messageType"`
	MessageVersion         string `json:"messageVersion"`
	ACSUIType              string `json:"acsUiType"`
	ChallengeCompletionInd string `json:"challengeCompletionInd"`

	ChallengeInfoHeader        string   `json:"challengeInfoHeader,omitempty"`
	ChallengeInfoLabel         string   `json:"challengeInfoLabel,omitempty"`
	ChallengeInfoText          string   `json:"challengeInfoText,omitempty"`
	ChallengeInfoTextIndicator string   `json:"challengeInfoTextIndicator,omitempty"`
	ChallengeAddInfo           string   `json:"challengeAddInfo,omitempty"`
	SubmitAuthenticationLabel  string   `json:"submitAuthenticationLabel,omitempty"`
	ResendInformationLabel     string   `json:"resendInformationLabel,omitempty"`
	ChallengeSelectInfo        []Choice `json:"challengeSelectInfo,omitempty"`
	OOBContinueLabel           string   `json:"oobContinueLabel,omitempty"`
	OOBAppURL                  string   `json:"oobAppURL,omitempty"`
	OOBAppLabel                string   `json:"oobAppLabel,omitempty"`
	ACSHTML                    string   `json:"acsHTML,omitempty"`
	WhitelistingInfoText       string   `json:"whitelistingInfoText,omitempty"`
	// WhyInfoText is a pointer so that the fault emptyWhyInfo can send
	// it empty; nil leaves it out.
	WhyInfoLabel    string  `json:"whyInfoLabel,omitempty"`
	WhyInfoText     *string `json:"whyInfoText,omitempty"`
	ExpandInfoLabel string  `json:"expandInfoLabel,omitempty"`
	ExpandInfoText  string  `json:"expandInfoText,omitempty"`
	IssuerImage     *Images `json:"issuerImage,omitempty"`
	PSImage         *Images `json:"psImage,omitempty"`
}

// Choice is one entry of challengeSelectInfo: a one-member object whose
// key the SDK sends back in challengeDataEntry, and its label.
type Choice map[string]string

// Images are the URLs of one image at the three densities an SDK picks
// from.
type Images struct {
	Medium    string `json:"medium"`
	High      string `json:"high"`
	ExtraHigh string `json:"extraHigh"`
}

// AppFinalCRes is the final CRes of the app channel: only the members
// Android's SDK accepts in a final CRes, and ACSUIType only for the fault
// extraFinalKey, which adds a member the SDK refuses.
type AppFinalCRes struct {
	ThreeDSServerTransID   string `json:"threeDSServerTransID"`
	ACSTransID             string `json:"acsTransID"`
	SDKTransID             string `json:"sdkTransID"`
	ACSCounterAtoS         string `json:"acsCounterAtoS"`
	MessageType            string `json:"messageType"`
	MessageVersion         string `json:"messageVersion"`
	ChallengeCompletionInd string `json:"challengeCompletionInd"`
	TransStatus            string `json:"transStatus"`
	ACSUIType              string `json:"acsUiType,omitempty"`
}

// Erro is an EMV error message of the app channel's exchange, in plain
// JSON: the ACS's answer to a CReq it cannot take, or what the SDK posts
// to the ACS when a CRes is wrong. The ids are those the sender knows.
type Erro struct {
	ThreeDSServerTransID string `json:"threeDSServerTransID,omitempty"`
	ACSTransID           string `json:"acsTransID,omitempty"`
	SDKTransID           string `json:"sdkTransID,omitempty"`
	MessageType          string `json:"messageType"`
	MessageVersion       string `json:"messageVersion,omitempty"`
	ErrorCode            string `json:"errorCode"`
	ErrorComponent       string `json:"errorComponent"`
	ErrorDescription     string `json:"errorDescription"`
	ErrorDetail          string `json:"errorDetail"`
	ErrorMessageType     string `json:"errorMessageType,omitempty"`
}
