package sandbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// keyCheck compares this replica's state keys with those of the replicas
// sharing its store (state.KeyRegistry), at start-up and every
// state.KeysRecheck after: a replica whose keys match neither the
// current nor a previous key of the others says so in the log and in
// threeds_state_keys_mismatch, instead of refusing their pages as forged
// without a word.
type keyCheck struct {
	reg     state.KeyRegistry
	fps     state.KeyFingerprints
	log     *slog.Logger
	metrics *web.Metrics

	mu      sync.Mutex
	checked bool
	last    state.KeysVerdict
}

// mismatchMessage is what the log says of keys that match none of the
// others'.
const mismatchMessage = "the state keys (--state-hash-key, --state-block-key) match neither the current nor a previous key " +
	"of the replicas sharing this store: each refuses the challenge pages and console sessions of the other as forged, " +
	"and a token's namespace differs between them; give every replica the same keys (during a rotation: the new pair " +
	"as current and the old one in --state-previous-keys, see docs/deployment.md)"

// check compares the keys once and logs what changed since the last
// check (everything the first time). A store that does not answer keeps
// the last verdict.
func (k *keyCheck) check(ctx context.Context) {
	v, err := k.reg.Check(ctx, k.fps, state.KeysTTL)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		if !k.checked {
			k.log.Warn("could not compare the state keys with the other replicas'; trying again", slog.Any("err", err))
		}
		return
	}
	if v == state.KeysFirst {
		v = state.KeysSame // for the log: the store keeps this replica's keys
	}
	first, changed := !k.checked, !k.checked || v != k.last
	k.checked, k.last = true, v
	k.metrics.KeysMismatch(!v.Agree())
	if !changed {
		return
	}
	fp := slog.String("key_fingerprint", k.fps.Current)
	switch v {
	case state.KeysMismatch:
		k.log.Warn(mismatchMessage, fp)
	case state.KeysNewer:
		k.log.Info("state keys rotated: the replicas sharing this store now know this replica's keys as the current ones; "+
			"those still on the previous keys agree", fp)
	case state.KeysOlder:
		k.log.Info("another replica rotated the state keys: this replica's current keys are its previous ones; "+
			"restart this one with the new pair as current and its own in --state-previous-keys", fp)
	default:
		if !first {
			k.log.Info("the state keys match the other replicas' again", fp)
		}
	}
}

// watch checks again every interval until ctx ends.
func (k *keyCheck) watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			k.check(ctx)
		}
	}
}
