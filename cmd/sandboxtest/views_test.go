package sandboxtest_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// jsonShape describes what JSON a Go type reads and writes: each member
// of a struct (embedded structs flattened) with its name, omitempty and
// the shape of its value, sorted; the element of a slice or pointer.
func jsonShape(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		return "raw"
	case t.Kind() == reflect.Pointer:
		return "*" + jsonShape(t.Elem())
	case t.Kind() == reflect.Slice:
		return "[]" + jsonShape(t.Elem())
	case t.Kind() != reflect.Struct:
		return t.Kind().String()
	}
	var members []string
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			inner := jsonShape(f.Type)
			members = append(members, strings.Split(inner[1:len(inner)-1], ", ")...)
			continue
		}
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" {
			name += "," + opts
		}
		members = append(members, name+": "+jsonShape(f.Type))
	}
	slices.Sort(members)
	return "{" + strings.Join(members, ", ") + "}"
}

// TestViewsMatchTheServer: the answers the package decodes have every
// field the sandbox sends, by the same names, and no other; the package
// spells them out so that go doc shows them.
func TestViewsMatchTheServer(t *testing.T) {
	pairs := []struct {
		mine, server reflect.Type
	}{
		{reflect.TypeFor[sandboxtest.Transaction](), reflect.TypeFor[web.TransactionDetail]()},
		{reflect.TypeFor[sandboxtest.TransactionList](), reflect.TypeFor[web.TransactionList]()},
		{reflect.TypeFor[sandboxtest.Clock](), reflect.TypeFor[web.ClockView]()},
		{reflect.TypeFor[sandboxtest.ChallengeResult](), reflect.TypeFor[web.CompleteResponse]()},
		{reflect.TypeFor[sandboxtest.ErrorBody](), reflect.TypeFor[web.ErrorBody]()},
	}
	for _, p := range pairs {
		if got, want := jsonShape(p.mine), jsonShape(p.server); got != want {
			t.Errorf("sandboxtest.%s reads\n%s\nbut the sandbox's %s is\n%s", p.mine.Name(), got, p.server, want)
		}
	}
}

// TestSent reads fields of a request the sandbox kept.
func TestSent(t *testing.T) {
	tx := &sandboxtest.Transaction{Events: []sandboxtest.Event{
		{Type: "lookup", Request: json.RawMessage(`{"browserInfo":{"userAgent":"UA/1","javaEnabled":false},` +
			`"challengeWindowSize":3,"card":{"cardNumber":"400000******9003"},"items":[{"n":"a"},{"n":"b"}]}`)},
		{Type: "enquiry", Request: json.RawMessage(`{"externalReferenceId":"ORD-1"}`)},
	}}
	for _, tc := range []struct{ typ, path, want string }{
		{"lookup", "browserInfo.userAgent", "UA/1"},
		{"lookup", "browserInfo.javaEnabled", "false"},
		{"lookup", "challengeWindowSize", "3"},
		{"lookup", "card", `{"cardNumber":"400000******9003"}`},
		{"lookup", "items.1.n", "b"},
		{"enquiry", "externalReferenceId", "ORD-1"},
	} {
		if got, err := tx.Sent(tc.typ, tc.path); err != nil || got != tc.want {
			t.Errorf("Sent(%q, %q) = %q, %v; want %q", tc.typ, tc.path, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ typ, path, want string }{
		{"lookup", "browserInfo.nope", "browserInfo.nope: no such field"},
		{"lookup", "items.2.n", "items.2: no element"},
		{"lookup", "challengeWindowSize.x", "challengeWindowSize.x: not an object"},
		{"cres", "transStatus", "no cres event with a request"},
	} {
		if _, err := tx.Sent(tc.typ, tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sent(%q, %q): %v, want an error with %q", tc.typ, tc.path, err, tc.want)
		}
	}
	if ev := tx.Event("enquiry"); ev == nil || ev.Type != "enquiry" || tx.Event("cres") != nil {
		t.Errorf("Event: %+v", ev)
	}
}
