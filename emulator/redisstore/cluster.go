package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// putCluster is Put on a Redis Cluster. The transaction's key (spread by
// its id) and its namespace's reference and share (in the namespace's
// slot) are in two slots, which no MULTI spans: the commands go without
// one, in one pipelined round trip (the client sends each to its
// primary at once), and Put answers once every one is acknowledged.
// What a single Redis's MULTI adds is lost only in a failure: a
// transaction refused or failed (an id stored already, a full node) may
// still have set its reference, which then finds nothing until the next
// lookup with it, and counted in its share.
func (s *Store) putCluster(ctx context.Context, t emulator.Transaction) error {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	ttl := s.maxAge.Milliseconds()
	cmds := make(rueidis.Commands, 1, 5)
	cmds[0] = s.c.B().Set().Key(s.txKey(t.ThreeDSServerTransID)).Value(encode(&t)).Nx().PxMilliseconds(ttl).Build()
	if t.ExternalReferenceID != "" {
		cmds = append(cmds, s.c.B().Set().Key(s.refKey(t.Namespace, t.ExternalReferenceID)).Value(refValue(t.ThreeDSServerTransID)).PxMilliseconds(ttl).Build())
	}
	if s.perTenant > 0 {
		set, now := s.tenantKey(t.Namespace), time.Now().UnixMilli()
		cmds = append(cmds,
			s.c.B().Zadd().Key(set).ScoreMember().ScoreMember(float64(now), t.ThreeDSServerTransID).Build(),
			s.c.B().Pexpire().Key(set).Milliseconds(ttl).Build(),
			s.c.B().Zcard().Key(set).Build())
	}
	res := s.c.DoMulti(ctx, cmds...)
	if err := res[0].Error(); rueidis.IsRedisNil(err) {
		return fmt.Errorf("redisstore: transaction %s exists already", t.ThreeDSServerTransID)
	} else if err != nil {
		return ClassifyWrite("put", err)
	}
	for _, r := range res[1:] {
		if err := r.Error(); err != nil {
			return ClassifyWrite("put", err)
		}
	}
	if s.perTenant > 0 {
		if n, err := res[len(res)-1].AsInt64(); err == nil && n > int64(s.perTenant) {
			return s.trimCluster(ctx, t.Namespace, time.Now().UnixMilli()-ttl)
		}
	}
	return nil
}

// shareClusterScript is shareScript for a cluster: the transactions'
// keys are in other slots, which a script may not touch, so it answers
// the ids it took out of the set, whose keys trimCluster deletes.
var shareClusterScript = rueidis.NewLuaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if over <= 0 then return {} end
local gone, ids = redis.call('ZPOPMIN', KEYS[1], over), {}
for i = 1, #gone, 2 do table.insert(ids, gone[i]) end
return ids`)

// trimCluster is trim on a cluster: the script takes the oldest beyond
// the share out of the namespace's set, then their keys are deleted,
// each in its own slot, in one round trip. A failure in between leaves
// transactions out of the set that live on until their time to live.
func (s *Store) trimCluster(ctx context.Context, ns string, expired int64) error {
	ids, err := shareClusterScript.Exec(ctx, s.c, []string{s.tenantKey(ns)},
		[]string{strconv.Itoa(s.perTenant), strconv.FormatInt(expired, 10)}).AsStrSlice()
	if err != nil || len(ids) == 0 {
		return ClassifyWrite("put (a tenant beyond its share)", err)
	}
	dels := make(rueidis.Commands, len(ids))
	for i, id := range ids {
		dels[i] = s.c.B().Del().Key(s.txKey(id)).Build()
	}
	for _, r := range s.c.DoMulti(ctx, dels...) {
		if err := r.Error(); err != nil {
			return ClassifyWrite("put (a tenant beyond its share)", err)
		}
	}
	return nil
}

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
