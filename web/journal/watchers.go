package journal

// watchers hands out, per namespace, a channel closed at the namespace's
// next change: the live feed of both journals. It is not safe for
// concurrent use; its journal's lock guards it.
type watchers struct {
	max   int // namespaces watched at once before all are woken
	chans map[string]chan struct{}
}

func newWatchers(max int) watchers {
	return watchers{max: max, chans: map[string]chan struct{}{}}
}

// changed returns the channel of ns, made when ns has none. When too many
// namespaces are watched, every watcher is woken first, to bound memory:
// a channel may so be closed without a change.
func (w *watchers) changed(ns string) <-chan struct{} {
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

// wake closes the channel of ns, if any.
func (w *watchers) wake(ns string) {
	if ch, ok := w.chans[ns]; ok {
		close(ch)
		delete(w.chans, ns)
	}
}

// wakeAll closes every channel.
func (w *watchers) wakeAll() {
	for ns, ch := range w.chans {
		close(ch)
		delete(w.chans, ns)
	}
}
