package journal

// Each namespace's share of the whole journal. The bounds of the whole
// journal (Options.Total, Options.MaxTotalBytes) are shared by every
// namespace; when one is reached, the namespace holding the most bytes
// gives way first, its oldest transaction forgotten: a namespace that
// floods the journal, or many, forget their own transactions before a
// smaller one loses any, and one within its fair share (the bound over
// the namespaces holding transactions) loses none while another holds
// more. Package fairshare finds that namespace, as it finds the tenant
// that gives way in the other shared pools.

// victim is the transaction the journal forgets at a bound of the whole
// journal: the oldest of the namespace holding the most bytes, but keep
// (the one being recorded); the oldest of all but keep when that
// namespace holds keep alone. The journal holds two or more.
func (j *History) victim(keep *entry) *entry {
	most, _ := j.held.Largest()
	sp := j.spaces[most]
	if en := sp.order.Front(); en != keep {
		return en
	}
	if en := sp.order.Next(sp.order.Front()); en != nil {
		return en
	}
	return oldestBut(&j.all, keep)
}

// addSpace makes the part of the journal of namespace ns.
func (j *History) addSpace(ns string) *space {
	sp := &space{byID: map[string]*entry{}, order: order{k: inSpace}}
	j.spaces[ns] = sp
	return sp
}

// dropSpace forgets the part of namespace ns, holding nothing any more.
func (j *History) dropSpace(ns string, sp *space) {
	delete(j.spaces, ns)
}
