package wire

import (
	"reflect"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

func TestDecodeEnquiry(t *testing.T) {
	const id = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	tests := []struct {
		name    string
		body    string
		want    message.EnquiryRequest
		ignored []string
	}{
		{"transaction id", `{"threeDsServerTransId": "` + id + `"}`,
			message.EnquiryRequest{ThreeDSServerTransID: id}, nil},
		{"upper-case id is lowered", `{"threeDsServerTransId": "8A880DC0-D2D2-4067-BCB1-B08D1690B26E"}`,
			message.EnquiryRequest{ThreeDSServerTransID: id}, nil},
		{"reference", `{"externalReferenceId": "ORD-1"}`,
			message.EnquiryRequest{ExternalReferenceID: "ORD-1"}, nil},
		{"both", `{"threeDsServerTransId": "` + id + `", "externalReferenceId": "ORD-1"}`,
			message.EnquiryRequest{ThreeDSServerTransID: id, ExternalReferenceID: "ORD-1"}, nil},
		{"null id with reference", `{"threeDsServerTransId": null, "externalReferenceId": "ORD-1"}`,
			message.EnquiryRequest{ExternalReferenceID: "ORD-1"}, nil},
		{"unknown field", `{"externalReferenceId": "ORD-1", "merchantCode": "M1"}`,
			message.EnquiryRequest{ExternalReferenceID: "ORD-1"}, []string{"merchantCode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ignored, err := DecodeEnquiry([]byte(tt.body))
			if err != nil {
				t.Fatalf("DecodeEnquiry error: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(ignored, tt.ignored) {
				t.Errorf("ignored = %v, want %v", ignored, tt.ignored)
			}
		})
	}
}

func TestDecodeEnquiryProblems(t *testing.T) {
	tests := []struct {
		name, body string
		code       string
		field      string
	}{
		{"empty object", `{}`, "201", "threeDsServerTransId,externalReferenceId"},
		{"both null", `{"threeDsServerTransId": null, "externalReferenceId": ""}`, "201", "threeDsServerTransId,externalReferenceId"},
		{"id not a UUID", `{"threeDsServerTransId": "12345"}`, "203", "threeDsServerTransId"},
		{"id without dashes", `{"threeDsServerTransId": "8a880dc0d2d24067bcb1b08d1690b26e0000"}`, "203", "threeDsServerTransId"},
		{"id not hex", `{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26g"}`, "203", "threeDsServerTransId"},
		{"id number", `{"threeDsServerTransId": 12}`, "203", "threeDsServerTransId"},
		{"reference too long", `{"externalReferenceId": "` + long("r", 51) + `"}`, "203", "externalReferenceId"},
		{"duplicate", `{"externalReferenceId": "a", "externalReferenceId": "b"}`, "204", "externalReferenceId"},
		{"reference with NUL", `{"externalReferenceId": "ORD-1\u0000"}`, "203", "externalReferenceId"},
		{"reference with a lone surrogate", `{"externalReferenceId": "ORD-\udfff"}`, "203", "externalReferenceId"},
		{"id with a control", `{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26\u007f"}`, "203", "threeDsServerTransId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeEnquiry([]byte(tt.body))
			e := asError(t, err)
			if len(e.Problems) != 1 || !hasProblem(e, tt.code, tt.field) {
				t.Fatalf("problems = %+v, want one %s on %s", e.Problems, tt.code, tt.field)
			}
			if got, want := e.EMVCode, tt.code; got != want {
				t.Errorf("EMVCode = %s, want %s", got, want)
			}
			if got, want := e.Detail, tt.field; got != want {
				t.Errorf("Detail = %q, want %q", got, want)
			}
		})
	}
}
