package web

import (
	"encoding/json"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// profileCompleted is the message a capture's outcome page posts to the
// merchant's window, as JSON text: Cardinal Cruise's listeners (which the
// real service's capture page copies) JSON.parse event.data. It has the
// shape of Cruise's /V2/ collect endpoint (MessageType and Payload with
// ActionCode and SessionId), and beside it the flat fields the sandbox
// posted before, for listeners written against those.
type profileCompleted struct {
	MessageType string         `json:"MessageType"`
	Payload     profilePayload `json:"Payload"`
	SessionID   string         `json:"SessionId"`
	Status      bool           `json:"Status"`
	StatusText  string         `json:"status"`
	DDCID       string         `json:"ddcId"`
	CompInd     string         `json:"threeDSCompInd,omitempty"`
	TransID     string         `json:"threeDsServerTransId,omitempty"`
	ErrorCode   string         `json:"errorCode,omitempty"`
	Error       string         `json:"error,omitempty"`
	EMVCode     string         `json:"emvErrorCode,omitempty"`
}

// profilePayload is Cruise's Payload of profile.completed: ActionCode
// SUCCESS or ERROR, the session (the ddcId), and for a success whether
// the ACS's 3DS Method was attempted and completed.
type profilePayload struct {
	ActionCode  string       `json:"ActionCode"`
	SessionID   string       `json:"SessionId"`
	DataSources *dataSources `json:"DataSources,omitempty"`
}

// dataSources is Cruise's DataSources: the sandbox collects no device
// data of its own, so MethodUrl alone.
type dataSources struct {
	MethodURL profileResult `json:"MethodUrl"`
}

// profileResult says whether a data source was attempted and completed.
type profileResult struct {
	Attempted bool `json:"Attempted"`
	Completed bool `json:"Completed"`
}

// profileMessage is the JSON text of the message for a capture's outcome.
func profileMessage(out message.CaptureOutcome) string {
	m := profileCompleted{MessageType: "profile.completed", SessionID: out.DDCID, DDCID: out.DDCID,
		Payload: profilePayload{ActionCode: "SUCCESS", SessionID: out.DDCID}}
	if e := out.Err; e != nil {
		m.Payload.ActionCode, m.StatusText = "ERROR", "failed"
		m.ErrorCode, m.Error, m.EMVCode = string(e.Code), e.Message, e.EMVCode
	} else {
		m.Status, m.StatusText, m.CompInd, m.TransID = true, "completed", out.CompInd, out.ThreeDSServerTransID
		m.Payload.DataSources = &dataSources{MethodURL: profileResult{Attempted: out.CompInd != "U", Completed: out.CompInd == "Y"}}
	}
	b, _ := json.Marshal(m) // strings and booleans always marshal
	return string(b)
}
