package redisstore

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// subscription is a subscribe run by a goroutine of its own until Close.
type subscription struct {
	stop    context.CancelFunc
	stopped chan struct{}
}

// startSubscription subscribes to channel in a goroutine of its own: see
// subscribe.
func startSubscription(c rueidis.Client, channel string, timeout time.Duration, onMessage func(string), onReset func()) *subscription {
	ctx, stop := context.WithCancel(context.Background())
	s := &subscription{stop: stop, stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		subscribe(ctx, c, channel, timeout, onMessage, onReset)
	}()
	return s
}

// Close ends the subscription and waits for its goroutine.
func (s *subscription) Close() {
	s.stop()
	<-s.stopped
}

// subscribe holds a subscription to channel until ctx ends: it calls
// onMessage with each message, and onReset whenever messages may have
// been missed (the subscription starts, restarts or fails), so that no
// cache or waiter is left with a change it never heard of. A lost
// subscription is made again a second later.
func subscribe(ctx context.Context, c rueidis.Client, channel string, timeout time.Duration, onMessage func(string), onReset func()) {
	for ctx.Err() == nil {
		listen(ctx, c, channel, timeout, onMessage, onReset)
		onReset()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	onReset()
}

// listen holds one subscription on a connection of its own until the
// connection fails or ctx ends. A dedicated connection reports its loss
// at once, where a shared one would resubscribe silently and hide the
// changes missed meanwhile.
func listen(ctx context.Context, c rueidis.Client, channel string, timeout time.Duration, onMessage func(string), onReset func()) {
	dc, release := c.Dedicate()
	defer release()
	lost := dc.SetPubSubHooks(rueidis.PubSubHooks{
		OnMessage: func(m rueidis.PubSubMessage) { onMessage(m.Message) },
		OnSubscription: func(s rueidis.PubSubSubscription) {
			if s.Kind == "subscribe" {
				onReset() // changes made before now were missed
			}
		},
	})
	sctx, cancel := context.WithTimeout(ctx, timeout)
	err := dc.Do(sctx, dc.B().Subscribe().Channel(channel).Build()).Error()
	cancel()
	if err != nil {
		dc.Close()
		return
	}
	select {
	case <-lost:
	case <-ctx.Done():
		dc.Close()
	}
}
