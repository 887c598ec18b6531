package wire

import "fmt"

// This file holds the bounds on the shape of a body that keep the work of
// one request bounded: members per object and keys per body (the nesting
// bound, maxDepth, is in read.go).

// Bounds on the shape of a body, far above what any legal request needs:
// the largest object of the interface, the lookup itself, has 33 fields,
// and a full lookup about a hundred keys in all. They keep the work of one
// request bounded whatever its size, on top of the limit on its bytes.
const (
	maxMembers = 256  // members of one object, duplicates included
	maxKeys    = 2048 // object keys in the whole body
)

// limits are the bounds a reader enforces; bodyLimits for every request,
// others only in tests.
type limits struct {
	members, keys int
}

var bodyLimits = limits{members: maxMembers, keys: maxKeys}

// limitError is a well-formed body beyond one of the bounds. The reader
// stops at the key that crosses it, so the rest of the body is neither
// read nor checked: the request as a whole is refused as EMV 101 (message
// received invalid), the code of the other limits on the message (its
// size, its nesting), rather than 203, which reports a data element whose
// format is wrong among the other problems of a message read to its end.
type limitError struct {
	offset int
	field  string // dotted path of the object, "body" for the top level
	reason string
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s %s at byte offset %d", e.field, e.reason, e.offset)
}

// count counts the key at offset, the nth member of its object, and
// fails once the object or the body holds more keys than r.limits allow.
func (r *reader) count(nth, offset int) error {
	r.keys++
	if nth <= r.limits.members && r.keys <= r.limits.keys {
		return nil
	}
	field := r.objectPath()
	if field == "" {
		field = "body"
	}
	if nth > r.limits.members {
		return &limitError{offset, field, fmt.Sprintf("has more than %d members", r.limits.members)}
	}
	return &limitError{offset, field, fmt.Sprintf("holds key number %d of the body, beyond the %d keys a body may hold", r.keys, r.limits.keys)}
}
