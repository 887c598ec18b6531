package emulator_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestSelect: the same transaction shows the same choices; the
// scenario's answers are among them and pass; a wrong answer uses an
// attempt (three end it N, 19); no choice, an unknown one, two on a
// select or one picked twice (on either, spaces around it or not) use
// none, with the same refusal on both.
func TestSelect(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, card string
		multi      bool
		answers    []string
	}{
		{"select", "4000000000009326", false, []string{"Chiang Mai"}},
		{"multiselect", "5200000000009339", true, []string{"Sandbox Coffee", "Demo Books"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			resp := f.lookup(tt.card, nil)
			id := resp.ThreeDSServerTransID
			page := f.open(resp)
			v, again := page.Style.(emulator.SelectView), f.open(resp).Style.(emulator.SelectView)
			if page.UI != map[bool]string{false: "select", true: "multiselect"}[tt.multi] || v.Multi != tt.multi || v.Question == "" ||
				!slices.Equal(v.Choices, again.Choices) || len(v.Choices) < len(tt.answers)+2 {
				t.Fatalf("page: %+v", page)
			}
			for _, a := range tt.answers {
				if !slices.Contains(v.Choices, a) || !strings.Contains(v.Hint, a) {
					t.Errorf("answer %q not among the choices %v or the hint %q", a, v.Choices, v.Hint)
				}
			}
			var wrong string
			for _, c := range v.Choices {
				if !slices.Contains(tt.answers, c) {
					wrong = c
					break
				}
			}
			refused := []struct {
				choices []string
				code    string
			}{
				{nil, "201"},
				{[]string{"Atlantis"}, "203"},
				{[]string{tt.answers[0], " " + tt.answers[0]}, "203"},
				{append(slices.Clone(tt.answers), tt.answers[0]), "203"},
			}
			if !tt.multi {
				refused = append(refused, struct {
					choices []string
					code    string
				}{[]string{tt.answers[0], wrong}, "203"})
			}
			for _, r := range refused {
				_, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionSelect, Choices: r.choices})
				if e, ok := emulator.AsError(err); !ok || e.EMVCode != r.code || e.Detail != "choices" {
					t.Errorf("choices %q: %v, want %s naming choices", r.choices, err, r.code)
				} else if len(r.choices) > 1 && strings.TrimSpace(r.choices[len(r.choices)-1]) == tt.answers[0] &&
					!strings.Contains(e.Message, "picked twice") {
					t.Errorf("choices %q: %q, want it to say a choice is picked twice", r.choices, e.Message)
				}
			}
			d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionSelect, Choices: []string{wrong}})
			if err != nil || d.Final || d.View.AttemptsLeft != 2 || !strings.Contains(d.View.Message, "2 attempts left") {
				t.Fatalf("a wrong answer: %+v, %v", d, err)
			}
			if _, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234"}); emvCode(err) != "203" {
				t.Errorf("otp on a select: %v, want 203", err)
			}
			d, err = f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionSelect, Choices: tt.answers})
			if err != nil || !d.Final || d.TransStatus != "Y" {
				t.Fatalf("the right answer: %+v, %v", d, err)
			}
			if q := f.enquiry(id); q.AuthenticationType != "01" || q.InteractionCounter != "02" {
				t.Errorf("enquiry: authenticationType %s, interactionCounter %s; want 01, 02", q.AuthenticationType, q.InteractionCounter)
			}
		})
	}
}

// TestSelectThreeWrongAnswers: three wrong answers end N, reason 19.
func TestSelectThreeWrongAnswers(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup("4000000000009326", nil)
	v := f.open(resp).Style.(emulator.SelectView)
	wrong := v.Choices[0]
	if wrong == "Chiang Mai" {
		wrong = v.Choices[1]
	}
	var d emulator.Decision
	for i := 0; i < 3; i++ {
		var err error
		if d, err = f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: scenarios.ActionSelect, Choices: []string{wrong}}); err != nil {
			t.Fatal(err)
		}
	}
	if q := f.enquiry(resp.ThreeDSServerTransID); !d.Final || q.TransactionStatus != "N" || q.StatusReason != "19" {
		t.Errorf("after three wrong answers: final %v, %s %s", d.Final, q.TransactionStatus, q.StatusReason)
	}
}

// TestSelectGeneratedAnswers: without answers in the scenario, the
// engine generates them, states them, and they pass.
func TestSelectGeneratedAnswers(t *testing.T) {
	f := newFixture(t, withScenarios(t, `scenarios:
  - id: generated
    match: {cardNumber: "4000000000009995"}
    challenge: {ui: multiselect}
`))
	resp := f.lookup("4000000000009995", nil)
	v := f.open(resp).Style.(emulator.SelectView)
	answers := v.Answers
	if len(answers) != 2 || len(v.Choices) != 6 || !strings.Contains(v.Hint, answers[0]+"; "+answers[1]) {
		t.Fatalf("hint %q, choices %v: want two stated answers among six", v.Hint, v.Choices)
	}
	d, err := f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: scenarios.ActionSelect, Choices: answers})
	if err != nil || d.TransStatus != "Y" {
		t.Errorf("the stated answers: %+v, %v", d, err)
	}
}
