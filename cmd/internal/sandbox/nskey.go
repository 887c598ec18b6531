package sandbox

import (
	"context"
	"fmt"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// namespaceKey finds the key the namespaces are hashed under, as the
// state store keeps it (see auth.SealNamespaceKey): it opens the copy
// sealed under one of pairs (the current pair first, then the previous
// ones) and, when the current pair has no copy yet (a rotation), seals
// one under it, so that the next rotation opens that one. A store that
// keeps none gets the key the current hash key makes, the one namespaces
// had before. shared is false when the store keeps a key that none of
// pairs opens (a replica with unrelated keys): the replica then uses its
// own, and its namespaces differ from the others'.
func namespaceKey(ctx context.Context, reg state.KeyRegistry, pairs []auth.KeyPair) (key []byte, shared bool, err error) {
	cur := pairs[0]
	curFP := cur.Fingerprint()
	kept, err := reg.NamespaceKey(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("read the namespace key: %w", err)
	}
	if kept.ID == "" {
		key = auth.NewNamespaceKey(cur.Hash)
		if kept, err = keepNamespaceKey(ctx, reg, cur, key); err != nil {
			return nil, false, err
		}
		if kept.ID == auth.NamespaceKeyID(key) {
			return key, true, nil
		}
		// Another replica kept another key first: open it as below.
	}
	for _, p := range pairs {
		sealed, ok := kept.Sealed[p.Fingerprint()]
		if !ok {
			continue
		}
		k, err := auth.OpenNamespaceKey(p, sealed)
		if err != nil || auth.NamespaceKeyID(k) != kept.ID {
			continue
		}
		if _, ok := kept.Sealed[curFP]; !ok {
			if _, err := keepNamespaceKey(ctx, reg, cur, k); err != nil {
				return nil, false, err
			}
		}
		return k, true, nil
	}
	return auth.NewNamespaceKey(cur.Hash), false, nil
}

// keepNamespaceKey seals key under the pair p and asks the store to keep
// the copy.
func keepNamespaceKey(ctx context.Context, reg state.KeyRegistry, p auth.KeyPair, key []byte) (state.SealedKey, error) {
	sealed, err := auth.SealNamespaceKey(p, key)
	if err != nil {
		return state.SealedKey{}, err
	}
	kept, err := reg.KeepNamespaceKey(ctx, auth.NamespaceKeyID(key), p.Fingerprint(), sealed)
	if err != nil {
		return state.SealedKey{}, fmt.Errorf("keep the namespace key: %w", err)
	}
	return kept, nil
}
