package adminapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Event returns the transaction's first event of type typ (e.g.
// "lookup"), or nil.
func (t *Transaction) Event(typ string) *Event {
	for i := range t.Events {
		if t.Events[i].Type == typ {
			return &t.Events[i]
		}
	}
	return nil
}

// Sent reads one field of the request the sandbox received in the
// transaction's first event of type typ that has one, by its dotted path
// (array elements by their index):
//
//	ua, err := tx.Sent("lookup", "browserInfo.userAgent")
//
// A string is returned as it is, any other value as its JSON (a number,
// true, an object). Card numbers are masked, as the sandbox keeps them.
func (t *Transaction) Sent(typ, path string) (string, error) {
	for _, ev := range t.Events {
		if ev.Type == typ && len(ev.Request) > 0 {
			return ev.RequestField(path)
		}
	}
	return "", fmt.Errorf("transaction %s has no %s event with a request", t.ThreeDSServerTransID, typ)
}

// RequestField reads one field of the event's request by its dotted path,
// as Transaction.Sent does.
func (e *Event) RequestField(path string) (string, error) {
	return field(e.Request, path)
}

// field is the value at the dotted path of the JSON document raw.
func field(raw json.RawMessage, path string) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("the event has no request")
	}
	v := raw
	for i, key := range strings.Split(path, ".") {
		next, err := member(v, key)
		if err != nil {
			return "", fmt.Errorf("%s: %w", strings.Join(strings.Split(path, ".")[:i+1], "."), err)
		}
		v = next
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	return string(v), nil
}

// member is the member key of the object v, or the element key (a
// number) of the array v.
func member(v json.RawMessage, key string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil {
		m, ok := obj[key]
		if !ok {
			return nil, errors.New("no such field")
		}
		return m, nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(arr) {
			return nil, fmt.Errorf("no element %q in an array of %d", key, len(arr))
		}
		return arr[i], nil
	}
	return nil, errors.New("not an object or an array")
}
