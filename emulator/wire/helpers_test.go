package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// baseBody returns the valid lookup request of testdata/lookup.json.
func baseBody(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/lookup.json")
	if err != nil {
		tb.Fatalf("reading base request: %v", err)
	}
	return b
}

// edit changes one field of the base request: sets it to val, or deletes it.
type edit struct {
	path string
	val  any
	del  bool
}

func set(path string, val any) edit { return edit{path: path, val: val} }
func del(path string) edit          { return edit{path: path, del: true} }

// edited returns the base request with the edits applied, re-encoded.
func edited(tb testing.TB, edits ...edit) []byte {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(baseBody(tb)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("decoding base request: %v", err)
	}
	for _, e := range edits {
		keys := strings.Split(e.path, ".")
		obj := m
		for _, k := range keys[:len(keys)-1] {
			next, ok := obj[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				obj[k] = next
			}
			obj = next
		}
		last := keys[len(keys)-1]
		if e.del {
			delete(obj, last)
		} else {
			obj[last] = e.val
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatalf("encoding edited request: %v", err)
	}
	return out
}

// num is a JSON number written as is.
func num(s string) json.Number { return json.Number(s) }

// long returns a string of n copies of c.
func long(c string, n int) string { return strings.Repeat(c, n) }

// asError fails the test unless err is an *emulator.Error.
func asError(tb testing.TB, err error) *emulator.Error {
	tb.Helper()
	if err == nil {
		tb.Fatal("got no error, want one")
	}
	e, ok := err.(*emulator.Error)
	if !ok {
		tb.Fatalf("got error %T (%v), want *emulator.Error", err, err)
	}
	return e
}

// hasProblem tells whether e lists a problem of code on field.
func hasProblem(e *emulator.Error, code, field string) bool {
	for _, p := range e.Problems {
		if p.EMVCode == code && p.Field == field {
			return true
		}
	}
	return false
}
