package scenarios

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// compiledSchema compiles schema.json with a JSON Schema validator.
func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compiling schema.json: %v", err)
	}
	return sch
}

// yamlToJSON converts a YAML scenario file into the JSON value a schema
// validator reads, as an editor's YAML language server does.
func yamlToJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("YAML: %v", err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("to JSON: %v", err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goodFiles returns every shipped, example and golden scenario file.
func goodFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	names, _ := fs.Glob(defaultFiles, "defaults/*.yaml")
	for _, n := range names {
		data, err := fs.ReadFile(defaultFiles, n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = data
	}
	for _, pattern := range []string{"testdata/example/*.y*ml", "testdata/golden/*.yaml"} {
		more, _ := filepath.Glob(pattern)
		for _, n := range more {
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files[n] = data
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d scenario files", len(files))
	}
	return files
}

func TestSchemaAcceptsEveryGoodFile(t *testing.T) {
	sch := compiledSchema(t)
	for name, data := range goodFiles(t) {
		t.Run(name, func(t *testing.T) {
			if err := sch.Validate(yamlToJSON(t, data)); err != nil {
				t.Errorf("schema refuses %s: %v", name, err)
			}
			if _, err := Parse(name, data); err != nil {
				t.Errorf("parser refuses %s: %v", name, err)
			}
		})
	}
}

func TestSchemaRefusesBadFiles(t *testing.T) {
	sch := compiledSchema(t)
	names, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(names) == 0 {
		t.Fatal("no testdata/bad files")
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(yamlToJSON(t, data)); err == nil {
				t.Errorf("schema accepts %s, want it refused", name)
			}
			if _, err := Parse(name, data); err == nil {
				t.Errorf("parser accepts %s, want it refused", name)
			}
		})
	}
}
