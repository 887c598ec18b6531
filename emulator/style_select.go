package emulator

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// selectStyle is a knowledge question (ui select, or multiselect when
// multi): the cardholder picks the right choice, or every right one.
// The choices are drawn with gofakeit seeded by the transaction, so one
// transaction always shows the same; the scenario's answers are among
// them, or generated ones, which the page states. A wrong answer uses an
// attempt as a wrong code does (attempts.go).
type selectStyle struct{ multi bool }

// Sizes of a question: its choices, and the generated right ones.
const (
	selectChoices      = 4
	multiSelectChoices = 6
	multiSelectAnswers = 2
)

func (selectStyle) actions() []string { return []string{scenarios.ActionSelect} }

func (s selectStyle) check(c Choice) error {
	if c.Action != scenarios.ActionSelect {
		return nil
	}
	if len(c.Choices) == 0 {
		return emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "action select needs the choices picked, in choices; nothing was used up", "choices")
	}
	for i, p := range c.Choices {
		for _, q := range c.Choices[:i] {
			if strings.TrimSpace(p) == strings.TrimSpace(q) {
				return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
					fmt.Sprintf("choice %q is picked twice: pick each choice once; nothing was used up", strings.TrimSpace(p)), "choices")
			}
		}
	}
	if !s.multi && len(c.Choices) > 1 {
		return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("a select challenge takes one choice, got %d; nothing was used up", len(c.Choices)), "choices")
	}
	return nil
}

func (selectStyle) opened(*scenarios.Challenge) (state.EventKind, string) { return "", "" }

func (s selectStyle) answer(t *state.Transaction, ch *scenarios.Challenge, c Choice, _ time.Time) (styleStep, error) {
	q := s.question(t.ThreeDSServerTransID, ch)
	picked := make([]string, 0, len(c.Choices))
	for _, p := range c.Choices {
		p = strings.TrimSpace(p)
		if !slices.Contains(q.choices, p) {
			return styleStep{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
				fmt.Sprintf("choice %q is not one of this challenge's: %s; nothing was used up", p, orList(q.choices)), "choices")
		}
		picked = append(picked, p)
	}
	slices.Sort(picked)
	want := slices.Clone(q.answers)
	slices.Sort(want)
	if slices.Equal(picked, want) {
		return styleStep{final: true, outcome: ch.Pass}, nil
	}
	return styleStep{wrong: true, entry: strings.Join(picked, ", ")}, nil
}

// SelectView is a knowledge question's part of the page
// (ChallengeView.Style).
type SelectView struct {
	// Question and its Choices; Multi: pick every right one (ui
	// multiselect), else one.
	Question string
	Choices  []string
	Multi    bool
	// Answers are the choices that pass, which Stated ("Lyon; Porto")
	// and Hint tell the tester.
	Answers      []string
	Stated, Hint string
}

func (s selectStyle) show(v *ChallengeView, t state.Transaction, ch *scenarios.Challenge, _ time.Time) {
	q := s.question(t.ThreeDSServerTransID, ch)
	stated := strings.Join(q.answers, "; ")
	v.Style = SelectView{Question: q.text, Choices: q.choices, Multi: s.multi, Answers: q.answers, Stated: stated, Hint: "Sandbox: pick " + stated}
}

// question is a knowledge question as a transaction shows it.
type question struct {
	text             string
	choices, answers []string
}

// question draws the question of transaction id: the scenario's answers
// or generated ones, and distractors, in an order of their own.
func (s selectStyle) question(id string, ch *scenarios.Challenge) question {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	f := gofakeit.New(h.Sum64())
	q := question{text: "In which city did you open this card's account?"}
	n, draw := selectChoices, f.City
	answers := 1
	if s.multi {
		q.text = "At which of these shops did you pay with this card last month? Pick every one."
		n, draw, answers = multiSelectChoices, f.Company, multiSelectAnswers
	}
	q.answers = slices.Clone(ch.Answers)
	for len(q.answers) < answers && len(ch.Answers) == 0 {
		if a := draw(); !slices.Contains(q.answers, a) {
			q.answers = append(q.answers, a)
		}
	}
	q.choices = slices.Clone(q.answers)
	for tries := 0; len(q.choices) < max(n, len(q.answers)+2) && tries < 100; tries++ {
		if c := draw(); !slices.Contains(q.choices, c) {
			q.choices = append(q.choices, c)
		}
	}
	f.ShuffleStrings(q.choices)
	return q
}
