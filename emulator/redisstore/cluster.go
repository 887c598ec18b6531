package redisstore

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// doMultiBySlot sends cmds, made of groups of sizes commands each (a
// MULTI ... EXEC of one slot, say), in one round trip and answers their
// replies in order. A cluster client refuses a pipeline that mixes
// commands without a key (MULTI, EXEC, PUBLISH) with keys of several
// slots, so there each group goes on its own, all at once.
func doMultiBySlot(ctx context.Context, c rueidis.Client, cmds rueidis.Commands, sizes []int) []rueidis.RedisResult {
	if !IsCluster(c) || len(sizes) < 2 {
		return c.DoMulti(ctx, cmds...)
	}
	res := make([]rueidis.RedisResult, len(cmds))
	var wg sync.WaitGroup
	at := 0
	for _, n := range sizes {
		group, out := cmds[at:at+n], res[at:at+n]
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(out, c.DoMulti(ctx, group...))
		}()
		at += n
	}
	wg.Wait()
	return res
}

// ddcCluster is DDC's read on a cluster: the names under each key are in
// slots of their own, read in one round trip.
func (r *Captures) ddcCluster(ctx context.Context, names []string) (string, error) {
	gets := make(rueidis.Commands, len(names))
	for i, n := range names {
		gets[i] = r.c.B().Get().Key(n).Build()
	}
	for _, res := range r.c.DoMulti(ctx, gets...) {
		id, err := res.ToString()
		if err == nil {
			return id, nil
		}
		if !rueidis.IsRedisNil(err) {
			return "", Classify("read a ddcId", err)
		}
	}
	return "", state.ErrNotFound
}

// captureShareScript keeps a tenant's set (KEYS[1]) of entries within
// its share on a cluster: it forgets the expired (scored before ARGV[1],
// now), ends those that expire first while the set holds ARGV[2] or
// more, lists member ARGV[3] until ARGV[1] + ARGV[4] ms, and answers the
// members it ended, whose entries (other slots) the caller deletes.
var captureShareScript = rueidis.NewLuaScript(`
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ended = {}
while redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) do
  local first = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  redis.call('ZREM', KEYS[1], first)
  table.insert(ended, first)
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return ended`)

// setOnceCluster is setOnce on a cluster, where the entry (keys[1]), its
// names under the previous keys (keys[2:]) and the tenant's set
// (keys[0]) are each in a slot of their own, so no one script holds
// them: a previous name found refuses it; SET NX decides, atomically,
// which of concurrent uses wins; then the tenant's set lists it and ends
// the tenant's entries beyond its share, deleted in one more round trip.
func (r *Captures) setOnceCluster(ctx context.Context, op, kind string, keys []string, member, value string, ttl time.Duration) (bool, error) {
	if len(keys) > 2 {
		exists := make(rueidis.Commands, 0, len(keys)-2)
		for _, k := range keys[2:] {
			exists = append(exists, r.c.B().Exists().Key(k).Build())
		}
		for _, res := range r.c.DoMulti(ctx, exists...) {
			n, err := res.AsInt64()
			if err != nil {
				return false, Classify(op, err)
			}
			if n > 0 {
				return false, nil
			}
		}
	}
	ms := max(ttl.Milliseconds(), 1)
	err := r.c.Do(ctx, r.c.B().Set().Key(keys[1]).Value(value).Nx().PxMilliseconds(ms).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	if err != nil {
		return false, ClassifyWrite(op, err)
	}
	// The use is recorded and acknowledged once the SET is: the share's
	// bookkeeping failing leaves the entry outside its tenant's set, to
	// end at its time to live.
	ended, err := captureShareScript.Exec(ctx, r.c, keys[:1],
		[]string{strconv.FormatInt(time.Now().UnixMilli(), 10), strconv.Itoa(r.perTenant), member, strconv.FormatInt(ms, 10)}).AsStrSlice()
	if err == nil && len(ended) > 0 {
		dels := make(rueidis.Commands, len(ended))
		for i, m := range ended {
			dels[i] = r.c.B().Del().Key(r.entry(kind, m)).Build()
		}
		r.c.DoMulti(ctx, dels...)
	}
	return true, nil
}
