package journal

import "sync"

// Watchers hands out, per namespace, a channel closed at the namespace's
// next change: the live feed of both journals (Journal.Changed). It is
// safe for concurrent use.
type Watchers struct {
	max int // namespaces watched at once before all are woken

	mu    sync.Mutex
	chans map[string]chan struct{}
}

// NewWatchers returns watchers of at most max namespaces at once.
func NewWatchers(max int) *Watchers {
	return &Watchers{max: max, chans: map[string]chan struct{}{}}
}

// Changed returns the channel of ns, made when ns has none. When too many
// namespaces are watched, every watcher is woken first, to bound memory:
// a channel may so be closed without a change.
func (w *Watchers) Changed(ns string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.chans[ns]
	if !ok {
		if len(w.chans) >= w.max {
			w.wakeAll()
		}
		ch = make(chan struct{})
		w.chans[ns] = ch
	}
	return ch
}

// Wake closes the channel of ns, if any.
func (w *Watchers) Wake(ns string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.chans[ns]; ok {
		close(ch)
		delete(w.chans, ns)
	}
}

// WakeAll closes every channel.
func (w *Watchers) WakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wakeAll()
}

func (w *Watchers) wakeAll() {
	for ns, ch := range w.chans {
		close(ch)
		delete(w.chans, ns)
	}
}
