// Package fairshare finds the tenant that gives way when a pool shared by
// every tenant is full: the one holding the most. Every bounded pool of
// the sandbox that several tenants fill (the transaction store, the
// console's sessions, the runtime scenarios, the journal, the captures'
// ddcIds and JWT ids) counts what each tenant holds in a Holdings and, at
// its bound of all, takes room from Holdings.Largest, so that a tenant
// flooding the pool forgets its own entries before a smaller one loses
// any.
package fairshare

import "container/heap"

// Holdings counts what each tenant holds (entries, or bytes) and finds
// the tenant holding the most in O(1); a change costs O(log tenants).
// The zero value is empty and ready to use; it is not safe for concurrent
// use (the pool's lock guards it).
type Holdings struct {
	at   map[string]*holding // tenant -> its place in the heap
	heap byAmount
}

type holding struct {
	tenant string
	amount int64
	i      int // its index in the heap
}

// Add changes tenant's holding by d; a holding that reaches zero (or
// less) is forgotten.
func (h *Holdings) Add(tenant string, d int64) {
	if d == 0 {
		return
	}
	if h.at == nil {
		h.at = map[string]*holding{}
	}
	e := h.at[tenant]
	if e == nil {
		if d <= 0 {
			return
		}
		e = &holding{tenant: tenant, amount: d}
		h.at[tenant] = e
		heap.Push(&h.heap, e)
		return
	}
	e.amount += d
	if e.amount <= 0 {
		heap.Remove(&h.heap, e.i)
		delete(h.at, tenant)
		return
	}
	heap.Fix(&h.heap, e.i)
}

// Of is what tenant holds.
func (h *Holdings) Of(tenant string) int64 {
	if e := h.at[tenant]; e != nil {
		return e.amount
	}
	return 0
}

// Largest is the tenant holding the most, and how much; "" and 0 when
// none holds anything. Of equal holdings, the tenant first in byte order
// gives way, so that the choice never depends on history.
func (h *Holdings) Largest() (string, int64) {
	if len(h.heap) == 0 {
		return "", 0
	}
	return h.heap[0].tenant, h.heap[0].amount
}

// Tenants is how many tenants hold something.
func (h *Holdings) Tenants() int { return len(h.heap) }

// byAmount is a max-heap of holdings (container/heap).
type byAmount []*holding

func (b byAmount) Len() int { return len(b) }
func (b byAmount) Less(i, j int) bool {
	if b[i].amount != b[j].amount {
		return b[i].amount > b[j].amount
	}
	return b[i].tenant < b[j].tenant
}
func (b byAmount) Swap(i, j int) {
	b[i], b[j] = b[j], b[i]
	b[i].i, b[j].i = i, j
}

func (b *byAmount) Push(x any) {
	e := x.(*holding)
	e.i = len(*b)
	*b = append(*b, e)
}

func (b *byAmount) Pop() any {
	old := *b
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*b = old[:len(old)-1]
	return e
}
