package auth

// DecodeDDCClaims is decodeDDCClaims, for the fuzz target.
var DecodeDDCClaims = decodeDDCClaims

// Counted is how many (client, source) pairs a counts.
func (a *Attempts) Counted() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.by)
}
