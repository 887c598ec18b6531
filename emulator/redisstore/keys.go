package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// KeyRegistry keeps the fingerprints of the state keys of the replicas
// sharing a Redis in one key (prefix "keys": the fingerprints separated
// by spaces, the current one first) with a time to live that each
// agreeing replica renews. The rule is emulator.JudgeKeys, in Go; a
// script only sets the key if it still holds what the rule was applied
// to, and the check is tried again otherwise.
type KeyRegistry struct {
	c       rueidis.Client
	key     string
	timeout time.Duration
}

var _ emulator.KeyRegistry = (*KeyRegistry)(nil)

// NewKeyRegistry returns the registry kept over client c under prefix
// (DefaultPrefix when empty); every call is bounded by timeout
// (DefaultTimeout when zero).
func NewKeyRegistry(c rueidis.Client, prefix string, timeout time.Duration) (*KeyRegistry, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewKeyRegistry needs a client")
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &KeyRegistry{c: c, key: prefix + "keys", timeout: timeout}, nil
}

// swapScript sets KEYS[1] to ARGV[2] for ARGV[3] ms if it holds ARGV[1]
// (an absent key holds ""); 1 when it did.
var swapScript = rueidis.NewLuaScript(`
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`)

// Check compares f with the fingerprints kept.
func (r *KeyRegistry) Check(ctx context.Context, f emulator.KeyFingerprints, ttl time.Duration) (emulator.KeysVerdict, error) {
	if !f.Valid() {
		return emulator.KeysMismatch, errors.New("redisstore: key fingerprints are 16 hex digits each")
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	for range 5 {
		raw, err := r.c.Do(ctx, r.c.B().Get().Key(r.key).Build()).ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			return emulator.KeysMismatch, Classify("read the state keys' fingerprints", err)
		}
		v, replace := emulator.JudgeKeys(emulator.ParseKeyFingerprints(raw), f)
		if !v.Agree() {
			return v, nil
		}
		next := raw
		if replace {
			next = f.String()
		}
		n, err := swapScript.Exec(ctx, r.c, []string{r.key}, []string{raw, next, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10)}).AsInt64()
		if err != nil {
			return emulator.KeysMismatch, ClassifyWrite("keep the state keys' fingerprints", err)
		}
		if n == 1 {
			return v, nil
		}
		// Another replica changed them in between: judge again.
	}
	return emulator.KeysMismatch, fmt.Errorf("%w: the state keys' fingerprints kept changing", emulator.ErrUnavailable)
}
