package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Keys allowed in each mapping of a scenario file. Schema() lists the
// same keys (schema.json with the styles' own); a test keeps the two in
// step.
var (
	fileKeys         = []string{"fallback", "scenarios"}
	scenarioKeys     = []string{"id", "description", "priority", "match", "when", "delay", "steps", "whiteList", "threeDSMethod", "frictionless", "challenge", "error", "threeRI"}
	matchKeys        = []string{"cardNumber", "cardPrefix", "binRange", "cardPattern", "amount", "currency", "cardholderName", "challengeInd", "messageVersion", "messageCategory", "authInd", "scheme", "threeDSCompInd"}
	binRangeKeys     = []string{"from", "to"}
	amountKeys       = []string{"min", "max"}
	delayKeys        = []string{"min", "max"}
	stepsKeys        = []string{"lookup", "challenge", "enquiry"}
	stepKeys         = []string{"delay", "fault"}
	faultKeys        = []string{"kind", "probability", "httpStatus", "errorCode", "status", "message", "emvErrorCode", "component", "description", "detail"}
	whiteListKeys    = []string{"status", "source"}
	methodKeys       = []string{"available", "duration"}
	frictionlessKeys = []string{"status", "reason", "eci", "version", "authenticationType", "on210"}
	on210Keys        = []string{"status", "reason", "eci"}
	challengeKeys    = append([]string{"version", "ui", "authenticationType", ActionPass, ActionFail, ActionCancel, "auto", "autoAfter", "firstCReqTimeout", "challengeTimeout", "trustPrompt", "appInterface", "appFault"}, styleKeys()...)
	outcomeKeys      = []string{"status", "reason", "challengeCancel", "eci"}
	errorKeys        = []string{"httpStatus", "errorCode", "status", "message", "emvErrorCode", "component", "description", "detail"}
)

// MaxDescription bounds a scenario's description, in bytes: it is shown in
// listings, and a runtime scenario's is kept by every replica.
const MaxDescription = 1024

// File is one parsed scenario file.
type File struct {
	// Name is the file's name as given to Parse; problems are reported under it.
	Name string
	// Fallback is the id of the scenario unmatched cards get, "" when the
	// file does not set one.
	Fallback string
	// Scenarios are the file's scenarios in file order.
	Scenarios []Scenario

	fallbackLine int
	embedded     bool
	// marks locate the identifying fields of every scenario of the file,
	// including those that failed to parse, for the cross-file checks.
	marks []mark
}

// mark locates the identifying fields of one scenario: its id and the key
// of its whole match and priority (see matchKey), "" when it has no match.
type mark struct {
	id, match     string
	idLine, mLine int
}

// yamlLine matches the line number yaml.v3 puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// parseFile parses one file and returns what it could make of it with
// every problem found. The file is never nil: scenarios with problems are
// left out of Scenarios but kept in marks.
func parseFile(name string, data []byte) (*File, []Problem) {
	f := &File{Name: name}
	d := &decoder{file: name}
	root, err := decodeYAML(data)
	switch {
	case errors.Is(err, io.EOF):
		d.problemf(nil, "file is empty: it needs a scenarios list")
		return f, d.problems
	case err != nil:
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			d.problems = append(d.problems, Problem{File: name, Line: line, Reason: "invalid YAML: " + m[2]})
		} else {
			d.problemf(nil, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return f, d.problems
	}
	d.parseTop(f, root)
	return f, d.problems
}

// decodeYAML decodes the single YAML document of data into a node. It
// returns io.EOF for a file without content and turns a panic of the YAML
// library into an error.
func decodeYAML(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("yaml: line %d: a scenario file holds one YAML document; remove the second ---", line)
	}
	if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null") {
		return nil, io.EOF
	}
	return doc.Content[0], nil
}

// parseTop decodes the top-level mapping into f.
func (d *decoder) parseTop(f *File, root *yaml.Node) {
	m, ok := d.mapping(root, "the file", fileKeys)
	if !ok {
		return
	}
	if fb, ok := d.pattern(m, "fallback", idPattern, "a scenario id"); ok {
		f.Fallback, f.fallbackLine = fb, m.values["fallback"].Line
	}
	if !d.required(m, "scenarios", "the file") {
		return
	}
	list := m.values["scenarios"]
	if list.Kind != yaml.SequenceNode {
		d.problemf(list, "scenarios must be a list, got %s", describe(list))
		return
	}
	if len(list.Content) == 0 {
		d.problemf(list, "scenarios is empty: a file needs at least one scenario")
		return
	}
	for _, item := range list.Content {
		before := len(d.problems)
		s, mk := d.parseScenario(resolve(item), f.Fallback)
		f.marks = append(f.marks, mk)
		if len(d.problems) == before {
			s.Source = Position{File: f.Name, Line: resolve(item).Line}
			s.Pack = packOf(f.Name, false)
			if f.Name == RuntimeFile {
				s.doc = documentOf(item)
			}
			f.Scenarios = append(f.Scenarios, s)
		}
	}
}

// documentOf is the scenario file that holds only the scenario of item.
// It cannot fail: item was just decoded from YAML.
func documentOf(item *yaml.Node) []byte {
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "scenarios"},
		{Kind: yaml.SequenceNode, Content: []*yaml.Node{resolve(item)}},
	}}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil
	}
	return out
}

// parseScenario decodes one item of the scenarios list. fallback is the
// file's fallback id: only that scenario may omit match.
func (d *decoder) parseScenario(n *yaml.Node, fallback string) (Scenario, mark) {
	var s Scenario
	var mk mark
	m, ok := d.mapping(n, "a scenario", scenarioKeys)
	if !ok {
		return s, mk
	}
	what := "scenario"
	if d.required(m, "id", "scenario") {
		if id, ok := d.pattern(m, "id", idPattern, "1-64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit"); ok {
			if id == FallbackID {
				d.problemf(m.values["id"], "id %q is reserved for the built-in fallback", id)
			}
			s.ID, mk.id, mk.idLine = id, id, m.values["id"].Line
			what = fmt.Sprintf("scenario %q", id)
		}
	}
	if m.has("description") {
		s.Description, _ = d.str(m, "description")
		if n := len(s.Description); n > MaxDescription {
			d.problemf(m.values["description"], "description is %d bytes long, at most %d", n, MaxDescription)
		}
	}
	if m.has("priority") {
		s.Priority, _ = d.integer(m, "priority", MinPriority, MaxPriority)
	}
	if m.has("when") {
		s.When = d.parseWhen(m.values["when"])
	}
	if m.has("match") {
		s.Match = d.parseMatch(m.values["match"])
		if s.Match != (Match{}) {
			mk.match, mk.mLine = matchKey(s.Match, s.When, s.Priority), resolve(m.values["match"]).Line
		}
	} else if s.ID != "" && s.ID != fallback {
		d.problemf(n, "%s has no match: only the file's fallback scenario may omit it", what)
	} else if m.has("when") {
		d.problemf(m.keys["when"], "%s is the fallback, which answers every card no scenario matches: it takes no when", what)
	}
	d.parseInjections(m, &s)
	if m.has("whiteList") {
		s.WhiteList = d.parseWhiteList(m.values["whiteList"])
	}
	if m.has("threeDSMethod") {
		s.Method = d.parseMethod(m.values["threeDSMethod"])
	}

	var set []string
	for _, k := range []string{"frictionless", "challenge", "error"} {
		if m.has(k) {
			set = append(set, k)
		}
	}
	switch len(set) {
	case 0:
		d.problemf(n, "%s needs one of frictionless, challenge or error", what)
	case 1:
		switch set[0] {
		case "frictionless":
			s.Frictionless = d.parseFrictionless(m.values["frictionless"])
		case "challenge":
			s.Challenge = d.parseChallenge(m.values["challenge"])
		case "error":
			s.Error = d.parseError(m.values["error"])
		}
	default:
		d.problemf(m.keys[set[1]], "%s sets both %s and %s: keep exactly one", what, set[0], set[1])
	}
	if v, ok := m.values["threeRI"]; ok {
		if s.Challenge == nil {
			d.problemf(m.keys["threeRI"], "%s: threeRI is what a challenge scenario answers on the 3RI channel, where no cardholder can be challenged; "+
				"a frictionless or error scenario answers 3RI lookups as it answers the others (add a scenario with when: {channel: 3ri} to answer them otherwise)", what)
		} else {
			s.ThreeRI = d.parseResult(v, "threeRI", threeRIKeys, frictionlessStatuses, s.Challenge.Version)
		}
	}
	return s, mk
}

// digits refuses a card number or prefix written as a YAML number, which
// would lose leading zeros and precision.
func (d *decoder) digits(n *yaml.Node, key string) bool {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		d.problemf(n, "%s must be quoted so it stays a string of digits: %s: %q", key, key, n.Value)
		return false
	}
	return true
}

// truncate cuts s to at most n bytes on a rune boundary, ending with "..."
// when it cuts.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= 3
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
