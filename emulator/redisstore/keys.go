package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// KeyRegistry keeps the sealed namespace key (see NamespaceKey) and the
// fingerprints of the state keys of the replicas sharing a Redis, these
// in one key (prefix "keys": the fingerprints separated
// by spaces, the current one first) with a time to live that each
// agreeing replica renews. The rule is state.JudgeKeys, in Go; a
// script only sets the key if it still holds what the rule was applied
// to, and the check is tried again otherwise.
type KeyRegistry struct {
	c       rueidis.Client
	key     string
	nsKey   string // the hash of the sealed namespace key
	timeout time.Duration
}

var _ state.KeyRegistry = (*KeyRegistry)(nil)

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
	return &KeyRegistry{c: c, key: prefix + "keys", nsKey: prefix + "nsk", timeout: timeout}, nil
}

// swapScript sets KEYS[1] to ARGV[2] for ARGV[3] ms if it holds ARGV[1]
// (an absent key holds ""); 1 when it did.
var swapScript = rueidis.NewLuaScript(`
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`)

// Check compares f with the fingerprints kept.
func (r *KeyRegistry) Check(ctx context.Context, f state.KeyFingerprints, ttl time.Duration) (state.KeysVerdict, error) {
	if !f.Valid() {
		return state.KeysMismatch, errors.New("redisstore: key fingerprints are 16 hex digits each")
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	for range 5 {
		raw, err := r.c.Do(ctx, r.c.B().Get().Key(r.key).Build()).ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			return state.KeysMismatch, Classify("read the state keys' fingerprints", err)
		}
		v, replace := state.JudgeKeys(state.ParseKeyFingerprints(raw), f)
		if !v.Agree() {
			return v, nil
		}
		next := raw
		if replace {
			next = f.String()
		}
		n, err := swapScript.Exec(ctx, r.c, []string{r.key}, []string{raw, next, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10)}).AsInt64()
		if err != nil {
			return state.KeysMismatch, ClassifyWrite("keep the state keys' fingerprints", err)
		}
		if n == 1 {
			return v, nil
		}
		// Another replica changed them in between: judge again.
	}
	return state.KeysMismatch, fmt.Errorf("%w: the state keys' fingerprints kept changing", state.ErrUnavailable)
}

// The namespace key is one hash without a time to live (prefix "nsk"):
// field "id" its id, and "s:" followed by a fingerprint for each sealed
// copy.
const (
	nsKeyID     = "id"
	nsKeySealed = "s:"
)

// keepSealedScript applies what state.JudgeNamespaceKey decided, if
// the hash KEYS[1] still keeps the id ARGV[1] it was judged on (an absent
// one keeps ""): it sets the id ARGV[2] and the copy ARGV[3] = ARGV[4],
// and removes the copy ARGV[5] when not empty; 1 when it did.
var keepSealedScript = rueidis.NewLuaScript(`
if (redis.call('HGET', KEYS[1], 'id') or '') ~= ARGV[1] then return 0 end
if ARGV[5] ~= '' then redis.call('HDEL', KEYS[1], ARGV[5]) end
redis.call('HSET', KEYS[1], 'id', ARGV[2], ARGV[3], ARGV[4])
return 1`)

// NamespaceKey returns the namespace key the replicas keep.
func (r *KeyRegistry) NamespaceKey(ctx context.Context) (state.SealedKey, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	m, err := r.c.Do(ctx, r.c.B().Hgetall().Key(r.nsKey).Build()).AsStrMap()
	if err != nil {
		return state.SealedKey{}, Classify("read the namespace key", err)
	}
	k := state.SealedKey{ID: m[nsKeyID]}
	if k.ID == "" {
		return state.SealedKey{}, nil
	}
	k.Sealed = map[string]string{}
	for f, v := range m {
		if fp, ok := strings.CutPrefix(f, nsKeySealed); ok {
			k.Sealed[fp] = v
		}
	}
	return k, nil
}

// KeepNamespaceKey keeps a sealed copy of the namespace key id, by the
// rule of state.JudgeNamespaceKey applied in Go to what it read, then
// set by a script if the key kept did not change in between (else it
// reads and judges again).
func (r *KeyRegistry) KeepNamespaceKey(ctx context.Context, id, fp, sealed string) (state.SealedKey, error) {
	if id == "" || fp == "" || sealed == "" {
		return state.SealedKey{}, errors.New("redisstore: a sealed namespace key needs its id, a fingerprint and the copy")
	}
	for range 5 {
		kept, err := r.NamespaceKey(ctx)
		if err != nil {
			return state.SealedKey{}, err
		}
		keep, drop := state.JudgeNamespaceKey(kept, id, fp)
		if !keep || kept.Sealed[fp] == sealed {
			return kept, nil
		}
		if drop != "" {
			drop = nsKeySealed + drop
		}
		bctx, cancel := bounded(ctx, r.timeout)
		n, err := keepSealedScript.Exec(bctx, r.c, []string{r.nsKey}, []string{kept.ID, id, nsKeySealed + fp, sealed, drop}).AsInt64()
		cancel()
		if err != nil {
			return state.SealedKey{}, ClassifyWrite("keep the namespace key", err)
		}
		if n == 1 {
			return r.NamespaceKey(ctx)
		}
	}
	return state.SealedKey{}, fmt.Errorf("%w: the namespace key kept changing", state.ErrUnavailable)
}

// On a Redis Cluster every key is stored in one of 16384 hash slots, and
// a MULTI or a script may only touch keys of one slot (else CROSSSLOT).
// The slot is the hash of the key's hash tag, the part between its first
// "{" and the next "}", or of the whole key without one. So on a cluster
// (and only there: a single Redis keeps the names it always had, so an
// upgrade moves nothing but the console sessions, whose earlier keys are
// still read) the keys that change together carry one tag:
//
//	t:<threeDSServerTransID>            untagged: spread over every slot by its id
//	r:{<ns>}…, tl:{<ns>}                a namespace's references and share list: the namespace's slot
//	j:{<ns>}:…                          a namespace's journal: the namespace's slot
//	n:<namespace>                       untagged (one key per script)
//	{rs<i>}s:<ns>, … {rs<i>}sbz         runtime scenarios: slot group i of up to 16, a namespace's all in one
//	{cs<i>}csd, cse, csn, csx           console sessions: slot group i, a token's all in one
//	dd:{<hash>}, jt:{<hash>}            a ddcId, a JWT id: its own slot (a claimable ddcId is found without its tenant)
//	ddt:{<hash>}, jtt:{<hash>}          a tenant's sets of them: its own slot, kept by a script of its own
//	{cb}cb:u, {cb}cb:k                  callback URLs and signing keys: one slot (one key per call)
//	{cb<i>}cb:…                         the callbacks' outbox: slot group i, a namespace's all in one
//	keys, nsk, ready                    untagged (one key per call)
//
// A namespace is the keyed hash of a token (hex), so the namespaces'
// slots spread the fleet's transactions, references, shares and journals
// over every primary. The runtime scenarios, sessions and outbox are
// bounded over every namespace too: they are split into slot groups
// (groupCount), each keeping its part of those bounds (groupBound) in
// atomic scripts, a namespace's share exact within its group. Every
// script is given every key it touches in KEYS.

// keyspace builds key names under a prefix, with hash tags on a cluster.
type keyspace struct {
	prefix  string
	cluster bool
}

// newKeyspace is the keyspace of client c under prefix. On a cluster the
// prefix may hold no "{" or "}", which would make its own hash tag and
// mislay the keys' slots.
func newKeyspace(c rueidis.Client, prefix string) (keyspace, error) {
	k := keyspace{prefix: prefix, cluster: IsCluster(c)}
	if k.cluster && strings.ContainsAny(prefix, "{}") {
		return k, fmt.Errorf("%w: the key prefix %q holds a brace, which a Redis Cluster reads as a hash tag: choose one without", ErrCluster, prefix)
	}
	return k, nil
}

// isCluster tells a client of a Redis Cluster.
func IsCluster(c rueidis.Client) bool { return c.Mode() == rueidis.ClientModeCluster }

// tagged returns s as a hash tag on a cluster, s itself elsewhere.
func (k keyspace) tagged(s string) string {
	if k.cluster {
		return "{" + s + "}"
	}
	return s
}

// group is the prefix of a group of keys that share one slot on a
// cluster ("{name}" after the prefix); the prefix elsewhere.
func (k keyspace) group(name string) string {
	if k.cluster {
		return k.prefix + "{" + name + "}"
	}
	return k.prefix
}

// maxGroups bounds the slot groups that the runtime scenarios, the
// console sessions and the callbacks' outbox are each spread over on a
// cluster: 16 tags land on every primary of a few, and a bound split in
// 16 keeps a useful part in each.
const maxGroups = 16

// groupCount is how many slot groups hold a feature whose bound over
// every tenant is total and whose share per tenant is share: 1 on a
// single Redis (its bound exact, its keys named as they always were);
// on a cluster as many as each hold at least one full share, at most
// maxGroups. A tenant's keys are all in one group (groupOf), so its
// share is exact; the bound over every tenant becomes each group's part
// of it (groupBound).
func (k keyspace) groupCount(total, share int) int {
	if !k.cluster || share <= 0 {
		return 1
	}
	return max(1, min(maxGroups, total/share))
}

// groupOf is the slot group, of n, of a tenant (a namespace, a token's
// hash): FNV-1a of its name, so every replica agrees.
func groupOf(tenant string, n int) int {
	if n <= 1 {
		return 0
	}
	h := uint32(2166136261)
	for i := 0; i < len(tenant); i++ {
		h ^= uint32(tenant[i])
		h *= 16777619
	}
	return int(h % uint32(n))
}

// groupBound is group i's part of a bound total split over n groups:
// total/n, the first total%n groups one more, so that the parts add up
// to total.
func groupBound(total, n, i int) int {
	if n <= 1 {
		return total
	}
	b := total / n
	if i < total%n {
		b++
	}
	return b
}

// groupN is the prefix of group i of a feature's groups named name: on
// a cluster "{name<i>}" after the prefix, so each group has a slot of
// its own; the prefix elsewhere (one group).
func (k keyspace) groupN(name string, i int) string {
	if k.cluster {
		return k.prefix + "{" + name + strconv.Itoa(i) + "}"
	}
	return k.prefix
}
