package state

import (
	"context"
	"strconv"
	"time"
)

// Captures keeps what the captures need beyond their stored collection:
// which collection a merchant-chosen ddcId names, and the JWT ids already
// used. It is state that outlives a request: in memory by default, shared
// by every replica in a shared store. Implementations are safe for
// concurrent use and bounded per tenant: a tenant holds at most
// MaxCapturesPerTenant ddcIds and as many JWT ids; beyond, its own entry
// that expires first is forgotten, never another tenant's.
type Captures interface {
	// BindDDC records that k names the collection of transaction id, for
	// ttl; false, and nothing changed, when k names one already.
	BindDDC(ctx context.Context, k DDCKey, id string, ttl time.Duration) (bool, error)
	// DDC returns the transaction id k names; ErrNotFound when none.
	DDC(ctx context.Context, k DDCKey) (string, error)
	// UseJTI records the JWT id jti of tenant as used, for ttl; false
	// when the tenant used it already (a replay).
	UseJTI(ctx context.Context, tenant, jti string, ttl time.Duration) (bool, error)
}

// MaxCapturesPerTenant is a tenant's share of the captures' state: the
// ddcIds it may hold bound at once, and apart the JWT ids it may have
// used within their lifetimes.
const MaxCapturesPerTenant = 10_000

// DDCKey names a merchant's ddcId where it is unique: within the tenant
// that chose it and the generation the tenant was in (a forgetting, DELETE
// /admin/transactions, leaves the earlier ddcIds behind), or, for a
// capture whose JWT proved no tenant, among every such capture.
type DDCKey struct {
	// Tenant is the namespace that chose the ddcId: the one whose share
	// it counts in.
	Tenant string
	// Generation is the tenant's NamespaceState.Generation.
	Generation uint64
	// Claim puts the ddcId among the captures no tenant proved (an
	// unverified JWT, the open default), where the first to bind it wins
	// and any lookup may claim it; DDC then ignores Tenant and
	// Generation.
	Claim bool
	// DDCID is the merchant's ddcId.
	DDCID string
}

// Scope is where k's ddcId is unique, as the state wings key it: the
// tenant and its generation, or the claimable captures' one scope.
func (k DDCKey) Scope() string {
	if k.Claim {
		return "claim"
	}
	return k.Tenant + "/" + strconv.FormatUint(k.Generation, 10)
}
