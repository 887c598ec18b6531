package journal

import (
	"container/heap"
	"container/list"
)

// Each namespace's share of the whole journal. The bounds of the whole
// journal (Options.Total, Options.MaxTotalBytes) are shared by every
// namespace; when one is reached, the namespace holding the most bytes
// gives way first, its oldest transaction forgotten: a namespace that
// floods the journal, or many, forget their own transactions before a
// smaller one loses any, and one within its fair share (the bound over
// the namespaces holding transactions) loses none while another holds
// more.

// byBytes orders the namespaces of a History, the one holding the most
// bytes first (a heap: container/heap).
type byBytes []*space

func (h byBytes) Len() int           { return len(h) }
func (h byBytes) Less(i, j int) bool { return h[i].bytes > h[j].bytes }
func (h byBytes) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}

// Push and Pop are container/heap's: use heap.Push and heap.Remove.
func (h *byBytes) Push(x any) {
	sp := x.(*space)
	sp.at = len(*h)
	*h = append(*h, sp)
}

func (h *byBytes) Pop() any {
	old := *h
	sp := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	sp.at = -1
	return sp
}

// victim is the transaction the journal forgets at a bound of the whole
// journal: the oldest of the namespace holding the most bytes, but keep
// (the one being recorded); the oldest of all but keep when that
// namespace holds keep alone. The journal holds two or more.
func (j *History) victim(keep *entry) *entry {
	sp := j.largest[0]
	if en := sp.order.Front().Value.(*entry); en != keep {
		return en
	}
	if el := sp.order.Front().Next(); el != nil {
		return el.Value.(*entry)
	}
	return oldestBut(j.all, keep)
}

// addSpace makes the part of the journal of namespace ns.
func (j *History) addSpace(ns string) *space {
	sp := &space{byID: map[string]*entry{}, order: list.New()}
	j.spaces[ns] = sp
	heap.Push(&j.largest, sp)
	return sp
}

// dropSpace forgets the part of namespace ns, holding nothing any more.
func (j *History) dropSpace(ns string, sp *space) {
	delete(j.spaces, ns)
	if sp.at >= 0 {
		heap.Remove(&j.largest, sp.at)
	}
}
