package state

import (
	"context"
	"errors"
	"time"
)

// Callbacks keeps the result callbacks: the URL each namespace
// registered, the generation of each namespace's signing secret, and the
// outbox of deliveries. An outbox entry is one transaction's delivery; a
// caller leases it (Claim) to attempt it, so that of several replicas
// only one delivers it at a time, and a replica that dies mid-way leaves
// it to another when its lease ends. It is state that outlives a
// request: in memory by default, shared by every replica in a shared
// store. Implementations are safe for concurrent use and bounded.
//
// The outbox is shared by every namespace, and no namespace may cost
// another its deliveries: each has a share of the outbox (a namespace
// with its share waiting has its next delivery refused, no other's), a
// full outbox makes room by pushing out a delivery of the namespace with
// the most waiting, and Claim takes the namespaces in turn, with at most
// a few attempts of each in flight, so that a receiver that never
// answers holds only its own namespace's turns.
type Callbacks interface {
	// Register sets the callback URL of namespace ns; an error wrapping
	// ErrCallbackLimit when too many namespaces have one.
	Register(ctx context.Context, ns, url string) error
	// Registered returns the callback URL of ns, "" when it has none. A
	// change made on this replica is seen at once; one made on another
	// as soon as the shared store announces it (within milliseconds).
	Registered(ctx context.Context, ns string) (string, error)
	// Unregister removes the URL of ns and reports whether it had one.
	Unregister(ctx context.Context, ns string) (bool, error)
	// SigningKey returns the generation of the signing secret of ns: the
	// zero SigningKey until it is first rotated. Every replica sees a
	// rotation at once.
	SigningKey(ctx context.Context, ns string) (SigningKey, error)
	// RotateSigningKey moves ns to the next generation of its signing
	// secret, rotated at now, and returns it; an error wrapping
	// ErrCallbackLimit when too many namespaces have rotated theirs.
	RotateSigningKey(ctx context.Context, ns string, now time.Time) (SigningKey, error)
	// Schedule asks for the delivery of transaction d.ID of d.Namespace at
	// d.Due: a new entry; or, for an entry not leased at now, the earlier
	// of the two dues; or, for a leased one, a delivery as soon as its
	// lease is released. A new entry is refused with an error wrapping
	// ErrCallbackQuota when its namespace has its share of the outbox
	// waiting. When the outbox is full, it pushes out the newest entry
	// not leased of the namespace with the most entries, when that one
	// has more than d's namespace would have, and returns it (its result
	// will not be delivered); otherwise it is refused with an error
	// wrapping ErrCallbackLimit.
	Schedule(ctx context.Context, d Delivery, now time.Time) (pushed Delivery, err error)
	// Claim leases at most max entries due at now until now+lease, each
	// with a new Token: no other Claim returns an entry while its lease
	// lasts. It takes the namespaces with entries due in turn, one entry
	// each, the namespace served longest ago first; a namespace with
	// perNamespace entries leased (by any caller, leases not yet ended)
	// waits until one ends (<= 0: no bound). The stores keep no clock:
	// the engine's is passed in.
	Claim(ctx context.Context, now time.Time, lease time.Duration, max, perNamespace int) ([]Delivery, error)
	// Release ends the lease of d (its Token): the entry, with d.Attempt,
	// is due at due, or at now when a Schedule came during the lease.
	// ErrLeaseLost when the lease ended meanwhile.
	Release(ctx context.Context, d Delivery, due, now time.Time) error
	// Done removes the entry of d when d.Token still leases it;
	// ErrLeaseLost otherwise.
	Done(ctx context.Context, d Delivery) error
}

// SigningKey is the generation of a namespace's callback signing
// secret. The secret itself is kept nowhere: the transport derives it
// from the state key, the namespace and the generation.
type SigningKey struct {
	// Generation counts the rotations, from 0.
	Generation uint64
	// Rotated is when the last rotation was made; zero before the first.
	Rotated time.Time
}

// Delivery is an outbox entry: the delivery of one transaction's result.
type Delivery struct {
	// ID is the transaction's threeDSServerTransID.
	ID        string
	Namespace string
	// Due is when it is next attempted.
	Due time.Time
	// Attempt counts the attempts made so far.
	Attempt int
	// Token names the lease of a claimed entry; empty otherwise.
	Token string
}

// Errors of a Callbacks.
var (
	// ErrCallbackLimit: the registrations, the rotated secrets or the
	// outbox are full.
	ErrCallbackLimit = errors.New("result callbacks: limit reached")
	// ErrCallbackQuota: a namespace has its share of the outbox waiting.
	ErrCallbackQuota = errors.New("result callbacks: this token's share of the outbox is full")
	// ErrLeaseLost: the delivery's lease ended before it was released.
	ErrLeaseLost = errors.New("result callbacks: the delivery's lease was lost")
)

// Default bounds of the result callbacks' state (CallbackBounds).
const (
	// DefaultCallbackURLs bounds the namespaces with a callback URL, and
	// those with a rotated signing secret.
	DefaultCallbackURLs = 10_000
	// DefaultCallbackOutbox bounds the deliveries waiting, and
	// DefaultCallbackOutboxPerToken those of one namespace.
	DefaultCallbackOutbox         = 100_000
	DefaultCallbackOutboxPerToken = 10_000
)

// CallbackBounds bound the result callbacks' state, in every store; a
// zero field takes its default.
type CallbackBounds struct {
	// URLs bounds the namespaces with a callback URL, and those with a
	// rotated signing secret (DefaultCallbackURLs).
	URLs int
	// Outbox bounds the deliveries waiting (DefaultCallbackOutbox),
	// OutboxPerNamespace those of one namespace
	// (DefaultCallbackOutboxPerToken).
	Outbox, OutboxPerNamespace int
}

// WithDefaults returns b with each zero field set to its default.
func (b CallbackBounds) WithDefaults() CallbackBounds {
	if b.URLs <= 0 {
		b.URLs = DefaultCallbackURLs
	}
	if b.Outbox <= 0 {
		b.Outbox = DefaultCallbackOutbox
	}
	if b.OutboxPerNamespace <= 0 {
		b.OutboxPerNamespace = DefaultCallbackOutboxPerToken
	}
	return b
}
