package state

// ShareSlack is how many transactions a tenant (namespace) may keep
// beyond its share of a Store: share/64, so none (the share is exact)
// below a share of 64, and 1,562 for the default 100,000. A store with
// a share per tenant keeps, whenever Put returns, at least the tenant's
// newest min(stored, share) transactions and at most share plus
// ShareSlack(share); a Put that finds more trims the tenant back to
// share, its oldest first. A shared store thus trims once per
// ShareSlack(share)+1 lookups of a tenant at its share, not at each.
func ShareSlack(share int) int {
	if share <= 0 {
		return 0
	}
	return share / 64
}
