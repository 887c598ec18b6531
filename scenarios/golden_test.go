package scenarios

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden freezes the file format: each testdata/golden/*.yaml parses
// into exactly the scenarios of its .golden.json. Run with -update after a
// deliberate change of the format and review the diff.
func TestGolden(t *testing.T) {
	names, _ := filepath.Glob("testdata/golden/*.yaml")
	if len(names) == 0 {
		t.Fatal("no golden files")
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(filepath.Base(name), data)
			if err != nil {
				t.Fatalf("parsing: %v", err)
			}
			got, err := json.MarshalIndent(f.Scenarios, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(name, ".yaml") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parse result differs from %s (run with -update if the change is meant):\n%s", golden, got)
			}
		})
	}
}
