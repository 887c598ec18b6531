package console

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
)

// cardConditions are, for each card number whose outcome depends on
// another field of the request as well, the conditions of its entries
// that need more than the card number, e.g. "threeDsRequestorChallengeInd
// 2". A card whose number alone decides is absent.
type cardConditions map[string][]string

// newCardConditions finds the cards of a catalogue whose outcome depends
// on another field of the request too.
func newCardConditions(entries []cards.Entry) cardConditions {
	c := cardConditions{}
	for _, e := range entries {
		if s := condition(e); e.CardNumber != "" && s != "" && !slices.Contains(c[e.CardNumber], s) {
			c[e.CardNumber] = append(c[e.CardNumber], s)
		}
	}
	return c
}

// note says how the outcome of e depends on another field of the request:
// "with threeDsRequestorChallengeInd 2" on the entry that needs it,
// "unless threeDsRequestorChallengeInd 2" on the other entries of the same
// card; "" when the card number alone decides, or e has no card number.
func (c cardConditions) note(e cards.Entry) string {
	if e.CardNumber == "" {
		return ""
	}
	if s := condition(e); s != "" {
		return "with " + s
	}
	if others := c[e.CardNumber]; len(others) > 0 {
		return "unless " + strings.Join(others, " or ")
	}
	return ""
}

// condition says in words what e needs besides its card number, e.g.
// "messageVersion 2.1.0, threeDsRequestorChallengeInd 2"; "" when nothing.
// A no-break space keeps each field with its value on narrow columns.
func condition(e cards.Entry) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e.When)) {
		if k != "cardNumber" {
			parts = append(parts, k+"\u00a0"+conditionValue(e.When[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// conditionValue writes the value of a condition: a range as "from A to
// B" or "min A max B".
func conditionValue(v any) string {
	if list, ok := v.([]string); ok { // a condition of when that takes several values
		return strings.Join(list, " or ")
	}
	m, ok := v.(map[string]string)
	if !ok {
		return fmt.Sprint(v)
	}
	var parts []string
	for _, k := range []string{"from", "to", "min", "max"} {
		if s, ok := m[k]; ok {
			parts = append(parts, k+" "+s)
		}
	}
	return strings.Join(parts, " ")
}
