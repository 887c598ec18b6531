package scenarios

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// schemaObject is the part of a JSON Schema object the tests read.
type schemaObject struct {
	AdditionalProperties *bool                      `json:"additionalProperties"`
	Properties           map[string]json.RawMessage `json:"properties"`
}

func TestSchemaMatchesParser(t *testing.T) {
	var doc struct {
		Schema string `json:"$schema"`
		schemaObject
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatalf("schema.json is not JSON: %v", err)
	}
	if got, want := doc.Schema, "https://json-schema.org/draft/2020-12/schema"; got != want {
		t.Errorf("got $schema %s, want %s", got, want)
	}
	tests := []struct {
		def  string // "" for the top level
		keys []string
	}{
		{"", fileKeys},
		{"scenario", scenarioKeys},
		{"match", matchKeys},
		{"frictionless", frictionlessKeys},
		{"challenge", challengeKeys},
		{"outcome", outcomeKeys},
		{"error", errorKeys},
		{"delayRange", delayKeys},
		{"amountRange", amountKeys},
		{"steps", stepsKeys},
		{"step", stepKeys},
		{"fault", faultKeys},
		{"whiteList", whiteListKeys},
		{"when", conditionKeys()},
		{"threeRI", threeRIKeys},
	}
	for _, tt := range tests {
		t.Run(tt.def, func(t *testing.T) {
			obj := doc.schemaObject
			if tt.def != "" {
				raw, ok := doc.Defs[tt.def]
				if !ok {
					t.Fatalf("schema has no $defs/%s", tt.def)
				}
				obj = schemaObject{}
				if err := json.Unmarshal(raw, &obj); err != nil {
					t.Fatal(err)
				}
			}
			if obj.AdditionalProperties == nil || *obj.AdditionalProperties {
				t.Error("got additionalProperties not false, want false")
			}
			var got []string
			for k := range obj.Properties {
				got = append(got, k)
			}
			want := slices.Clone(tt.keys)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got schema keys %v, want the parser's %v", got, want)
			}
		})
	}
}

func TestSchemaEnums(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Enum       []string `json:"enum"`
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		def, property string
		want          []string
	}{
		{"frictionless", "status", frictionlessStatuses},
		{"outcome", "status", outcomeStatuses},
		{"outcome", "challengeCancel", challengeCancels},
		{"error", "status", errorStatuses},
		{"error", "component", components},
		{"challenge", "auto", autoChoices},
		{"challenge", "appFault", appFaults},
		{"challenge", "ui", styleNames()},
		{"version", "", versions},
		{"authenticationType", "", authenticationTypes},
		{"fault", "kind", faultKinds},
		{"whiteList", "status", whiteListStatuses},
		{"whiteList", "source", whiteListSources},
		{"match", "messageVersion", messageVersions},
		{"match", "messageCategory", messageCategories},
		{"threeRI", "status", frictionlessStatuses},
	}
	for _, tt := range tests {
		def := doc.Defs[tt.def]
		got := def.Enum
		if tt.property != "" {
			got = def.Properties[tt.property].Enum
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s.%s: got schema enum %v, want %v", tt.def, tt.property, got, tt.want)
		}
	}
}

func TestSchemaReturnsACopy(t *testing.T) {
	s := Schema()
	s[0] = 'x'
	if Schema()[0] != '{' {
		t.Error("changing the returned schema changed the package's copy")
	}
}

// TestSchemaSchemesAreTheList: the schema's match.scheme enum is the list
// of [Schemes], in its order, so that the two cannot drift apart.
func TestSchemaSchemesAreTheList(t *testing.T) {
	var doc struct {
		Defs struct {
			Match struct {
				Properties struct {
					Scheme struct {
						Enum []string `json:"enum"`
					} `json:"scheme"`
				} `json:"properties"`
			} `json:"match"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Defs.Match.Properties.Scheme.Enum, SchemeNames(); !slices.Equal(got, want) {
		t.Errorf("schema.json $defs/match/scheme enum = %v, want the schemes of schemes.go %v", got, want)
	}
}

// TestSchemaTakesTheStylesFromGo: the challenge's ui and the styles' own
// keys are completed from Styles, so a style is stated once; a style
// whose key schema does not match its keys is refused.
func TestSchemaTakesTheStylesFromGo(t *testing.T) {
	pin := Style{UI: "pin", Doc: "a PIN", AuthenticationType: "01", Keys: []string{"pin"}, Schema: `{"pin": {"type": "string"}}`}
	out, err := completeSchema(schema, append(Styles(), pin))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Type        string   `json:"type"`
				Enum        []string `json:"enum"`
				Description string   `json:"description"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Defs["challenge"].Properties
	if ui := props["ui"]; !slices.Contains(ui.Enum, "pin") || !strings.Contains(ui.Description, "pin, a PIN (authenticationType 01 by default)") {
		t.Errorf("ui = %+v, want pin among its values and described", ui)
	}
	if props["pin"].Type != "string" {
		t.Errorf("pin = %+v, want its schema", props["pin"])
	}
	for name, st := range map[string]Style{
		"missing key":  {UI: "pin", Keys: []string{"pin"}, Schema: `{}`},
		"other key":    {UI: "pin", Keys: []string{"pin"}, Schema: `{"code": {}}`},
		"not a schema": {UI: "pin", Keys: []string{"pin"}, Schema: `{`},
	} {
		if _, err := completeSchema(schema, []Style{Styles()[0], st}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSchemaFileIsTheBase: scenarios/schema.json is the base that
// Schema() completes: it holds neither the challenge's ui nor any style's
// own keys, so adding a style never rewrites it; and Schema() carries
// every style's ui value and keys. Editors fetch the complete schema
// from the release (cmd/release writes it) or from a running sandbox.
func TestSchemaFileIsTheBase(t *testing.T) {
	file, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, schema) {
		t.Fatal("the embedded schema is not scenarios/schema.json")
	}
	type challengeProps struct {
		Defs struct {
			Challenge struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"challenge"`
		} `json:"$defs"`
	}
	var base, full challengeProps
	if err := json.Unmarshal(file, &base); err != nil {
		t.Fatalf("schema.json is not JSON: %v", err)
	}
	if err := json.Unmarshal(Schema(), &full); err != nil {
		t.Fatal(err)
	}
	if _, ok := base.Defs.Challenge.Properties["ui"]; ok {
		t.Error("schema.json has the challenge's ui, want it from Styles only")
	}
	if got := full.Defs.Challenge.Properties["ui"].Enum; !slices.Equal(got, styleNames()) {
		t.Errorf("Schema(): ui enum %v, want every style %v", got, styleNames())
	}
	for _, st := range Styles() {
		for _, k := range st.Keys {
			if _, ok := base.Defs.Challenge.Properties[k]; ok {
				t.Errorf("schema.json has ui %s's key %s, want it from Styles only", st.UI, k)
			}
			if _, ok := full.Defs.Challenge.Properties[k]; !ok {
				t.Errorf("Schema() lacks ui %s's key %s", st.UI, k)
			}
		}
	}
}
