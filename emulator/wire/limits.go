package wire

import (
	"fmt"
	"strings"
)

// This file holds the bounds on the shape of a body that keep the work of
// one request bounded: members per object and keys per body (the nesting
// bound, maxDepth, is in json.go).

// Bounds on the shape of a body, far above what any legal request needs:
// the largest object of the interface, the lookup itself, has 33 fields,
// and a full lookup about a hundred keys in all. They keep the work of one
// request bounded whatever its size, on top of the limit on its bytes.
const (
	maxMembers = 256  // members of one object, duplicates included
	maxKeys    = 2048 // object keys in the whole body
)

// limits are the bounds a parser enforces; bodyLimits for every request,
// others only in tests.
type limits struct {
	members, keys int
}

var bodyLimits = limits{members: maxMembers, keys: maxKeys}

// limitError is a well-formed body beyond one of the bounds. The parser
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

// countKey counts the key at p.pos, the nth member of its object, and
// fails once the object or the body holds more keys than p.limits allow.
// It is small enough to be inlined in the loops over members.
func (p *parser) countKey(nth int) error {
	p.keys++
	if nth <= p.limits.members && p.keys <= p.limits.keys {
		return nil
	}
	return p.beyond(nth)
}

// beyond builds the limitError of countKey.
func (p *parser) beyond(nth int) error {
	if nth > p.limits.members {
		return &limitError{p.pos, p.objectPath(), fmt.Sprintf("has more than %d members", p.limits.members)}
	}
	return &limitError{p.pos, p.objectPath(), fmt.Sprintf("holds key number %d of the body, beyond the %d keys a body may hold", p.keys, p.limits.keys)}
}

// objectPath is the dotted path of the object being read, "body" for the
// top level.
func (p *parser) objectPath() string {
	if len(p.path) == 0 {
		return "body"
	}
	var b strings.Builder
	p.writePath(&b)
	return b.String()
}
