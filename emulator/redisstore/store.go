package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/record"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// formatV1 is the first byte of every stored transaction: the value's
// format. A replica refuses a value of a format it does not know rather
// than misread it. Format 1: the format byte, a flags byte, then the
// transaction's record (package record) without its threeDSServerTransID,
// which the key holds; the ACS and DS transaction ids are 16 raw bytes
// when they are canonical UUIDs (flagACS, flagDS). A transaction so takes
// some 120 bytes less of Redis's memory.
const formatV1 byte = 1

// Flags of a stored transaction.
const (
	flagACS byte = 1 << iota // ACSTransID is 16 raw bytes
	flagDS                   // DSTransID is 16 raw bytes
)

// Options set up a Store.
type Options struct {
	// Prefix begins every key; DefaultPrefix when empty.
	Prefix string
	// MaxAge is how long a transaction is kept (its TTL).
	MaxAge time.Duration
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Logger receives what the checks of Redis's eviction policy find;
	// nil discards it.
	Logger *slog.Logger
	// PolicyRecheck is how often, at most, Ping reads the eviction policy
	// again; DefaultPolicyRecheck when zero.
	PolicyRecheck time.Duration
	// IndexKey keys the hashes that name the external references in the
	// index's key names, so that no request value stands in a key name;
	// required. Replicas sharing the store share it, and a rotation of
	// the state keys keeps it (auth.ReferenceKey).
	IndexKey []byte
	// MaxEntriesPerTenant is a tenant's share: the most transactions of
	// one namespace kept, plus at most state.ShareSlack; beyond it the
	// namespace's own oldest are deleted. 0 leaves a namespace
	// unbounded but by MaxAge.
	MaxEntriesPerTenant int
}

// Store is the state.Store in Redis.
type Store struct {
	c       rueidis.Client
	prefix  string
	maxAge  time.Duration
	timeout time.Duration
	policy  *policyWatch
	refs    *refHash // names the references in the index's keys
	// refPrefix begins every key of the reference index.
	refPrefix string
	// perTenant is a namespace's share (Options.MaxEntriesPerTenant),
	// shareText the same in decimal.
	perTenant int
	// cluster: the keys carry hash tags (keys.go), and a share's trim
	// deletes its transactions key by key.
	cluster   bool
	shareText string
	// tenants is what this replica remembers of the namespaces' lists.
	tenants *tenants
	// renewEvery is how often at most a replica renews the TTL of a
	// namespace's list, to MaxAge plus renewEvery.
	renewEvery time.Duration
}

var (
	_ state.Store  = (*Store)(nil)
	_ state.Pinger = (*Store)(nil)
)

// NewStore returns the Store over client c.
func NewStore(c rueidis.Client, opt Options) (*Store, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewStore needs a client")
	}
	if opt.MaxAge <= 0 {
		return nil, fmt.Errorf("redisstore: max age must be positive, got %s", opt.MaxAge)
	}
	if len(opt.IndexKey) < 16 {
		return nil, errors.New("redisstore: the reference index needs a key of 16 bytes or more")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.PolicyRecheck <= 0 {
		opt.PolicyRecheck = DefaultPolicyRecheck
	}
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	return &Store{c: c, prefix: opt.Prefix, cluster: ks.cluster, maxAge: opt.MaxAge, timeout: opt.Timeout,
		policy: &policyWatch{c: c, log: opt.Logger, every: opt.PolicyRecheck}, refs: newRefHash(opt.IndexKey), refPrefix: opt.Prefix + "r:",
		perTenant: max(opt.MaxEntriesPerTenant, 0), shareText: strconv.Itoa(max(opt.MaxEntriesPerTenant, 0)), tenants: &tenants{},
		renewEvery: min(max(opt.MaxAge/8, time.Millisecond), time.Minute)}, nil
}

func (s *Store) txKey(id string) string { return s.prefix + "t:" + id }

// refKey is the key of a namespace's reference: the namespace (a keyed
// hash itself) and the keyed hash of the reference, never the reference
// as the request sent it.
func (s *Store) refKey(ns, ref string) string {
	if s.cluster {
		return s.refs.key(s.refPrefix+"{"+ns+"}", ns, ref)
	}
	return s.refs.key(s.refPrefix, ns, ref)
}

// encode is the stored value of t.
func encode(t *state.Transaction) string {
	c := *t
	c.ThreeDSServerTransID = ""
	var flags byte
	if b, ok := uuidBytes(c.ACSTransID); ok {
		c.ACSTransID, flags = b, flags|flagACS
	}
	if b, ok := uuidBytes(c.DSTransID); ok {
		c.DSTransID, flags = b, flags|flagDS
	}
	var buf [512]byte
	b := append(buf[:0], formatV1, flags)
	return string(record.Append(b, &c))
}

// decode reads the stored value of transaction id.
func decode(id string, v []byte) (state.Transaction, error) {
	if len(v) < 2 || v[0] != formatV1 {
		return state.Transaction{}, fmt.Errorf("redisstore: stored transaction %s of unknown format %d", id, firstByte(v))
	}
	flags := v[1]
	t, err := record.Decode(v[2:])
	if err != nil {
		return state.Transaction{}, fmt.Errorf("redisstore: stored transaction %s: %w", id, err)
	}
	t.ThreeDSServerTransID = id
	if flags&flagACS != 0 {
		t.ACSTransID = uuidString(t.ACSTransID)
	}
	if flags&flagDS != 0 {
		t.DSTransID = uuidString(t.DSTransID)
	}
	return t, nil
}

// uuidBytes returns the 16 bytes of a UUID in canonical lower-case form,
// as a string; false for anything else, which is kept as it is.
func uuidBytes(s string) (string, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return "", false
	}
	var b [16]byte
	j := 0
	for i := 0; i < 36; i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		hi, lo := unhex(s[i]), unhex(s[i+1])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b[j] = byte(hi<<4 | lo)
		j++
	}
	return string(b[:]), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1 // upper case is not canonical: kept as text
}

// uuidString is the canonical form of 16 UUID bytes.
func uuidString(b string) string {
	const digits = "0123456789abcdef"
	if len(b) != 16 {
		return b
	}
	out := make([]byte, 0, 36)
	for i := 0; i < 16; i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, digits[b[i]>>4], digits[b[i]&0xF])
	}
	return string(out)
}

func firstByte(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}

// Put stores a new transaction with a time to live of MaxAge and, when it
// has a reference, makes it the newest of that reference. With a share
// per tenant it appends the transaction's id to its namespace's list
// (tl:), whose RPUSH answers its length. The commands go in one
// pipelined write, without MULTI, with those of concurrent requests
// (ConnectOptions.FlushDelay): on a cluster the transaction (spread by
// its id) and its reference and list (in the namespace's slot) are in
// two slots, which no MULTI spans, and on a single Redis a MULTI adds an
// EXEC and its replies to every lookup for what matters only in a
// failure (below). Put answers once every command is acknowledged.
//
// The list's TTL is renewed to MaxAge plus renewEvery by a replica's
// first lookup of the namespace in each renewEvery, not by every lookup,
// so it outlives every id it holds. A length beyond the share plus
// state.ShareSlack makes Put trim the namespace back to its share (trim:
// shareScript, then the transactions' DEL): once per slack+1 lookups at
// the share, whichever replica made them, so the share costs
// a lookup one command, RPUSH. Once Put returns without an error, the
// namespace keeps at most its share plus slack of what this Put and
// those before it listed.
//
// It never overwrites a stored transaction: an id already stored is
// refused. Ids are random UUIDs (state.Store: globally unique), so this
// happens only by a bug. What a MULTI would add is lost only in a
// failure: a transaction refused or failed (an id stored already, a
// Redis out of memory) may still have set its reference, which then
// finds nothing until the next lookup with it, and been listed in its
// share (where it takes a place until trimmed); a trim failing between
// its two steps leaves transactions out of the list that live on until
// their time to live.
func (s *Store) Put(ctx context.Context, t state.Transaction) (err error) {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	ttl := s.maxAge.Milliseconds()
	id := t.ThreeDSServerTransID
	cmds, sh := s.putCommands(make(rueidis.Commands, 0, 4), &t, ttl)
	defer func() { sh.settle(err) }()
	res := s.c.DoMulti(ctx, cmds...)
	if err := putReplies(id, len(res), func(i int) error { return res[i].Error() }); err != nil {
		return err
	}
	if s.perTenant == 0 {
		return nil
	}
	n, err := res[sh.at].AsInt64()
	if err != nil {
		return ClassifyWrite("put", err)
	}
	return s.keepShare(ctx, sh, n, ttl)
}

// putReplies reads a Put's n replies through errAt, the transaction's
// SET NX first (nil when the id is taken): the first error, or nil.
func putReplies(id string, n int, errAt func(int) error) error {
	if err := errAt(0); rueidis.IsRedisNil(err) {
		return fmt.Errorf("redisstore: transaction %s exists already", id)
	} else if err != nil {
		return ClassifyWrite("put", err)
	}
	for i := 1; i < n; i++ {
		if err := errAt(i); err != nil {
			return ClassifyWrite("put", err)
		}
	}
	return nil
}

// keepShare ends a Put once the namespace's list answered its length n:
// a new list (the namespace's first transaction for MaxAge, or Redis
// lost it) gets its TTL now, and a list beyond the share and its slack
// is trimmed back to the share by trim.
func (s *Store) keepShare(ctx context.Context, sh putShare, n, ttl int64) error {
	if n == 1 && sh.renew == 0 {
		err := s.c.Do(ctx, s.c.B().Pexpire().Key(sh.list).Milliseconds(ttl+s.renewEvery.Milliseconds()).Build()).Error()
		if err != nil {
			return ClassifyWrite("put", err)
		}
	}
	if n > int64(s.perTenant+state.ShareSlack(s.perTenant)) {
		return s.trim(ctx, sh.list)
	}
	return nil
}

// putShare is what a Put adds for its namespace's share.
type putShare struct {
	list  string  // the namespace's list of ids; "" without a share
	ten   *tenant // this replica's view of the namespace
	renew int64   // the list's new TTL in milliseconds; 0 keeps it
	at    int     // the index of the RPUSH among the Put's commands
}

// putCommands appends to cmds the writes of a Put of t, each with a time
// to live of ttl milliseconds: the transaction's SET NX (first), its
// reference's SET and, with a share, the RPUSH of its id to its
// namespace's list and, when this replica's renewal is due, the list's
// PEXPIRE.
func (s *Store) putCommands(cmds rueidis.Commands, t *state.Transaction, ttl int64) (rueidis.Commands, putShare) {
	id := t.ThreeDSServerTransID
	cmds = append(cmds, s.c.B().Set().Key(s.txKey(id)).Value(encode(t)).Nx().PxMilliseconds(ttl).Build())
	if t.ExternalReferenceID != "" {
		cmds = append(cmds, s.c.B().Set().Key(s.refKey(t.Namespace, t.ExternalReferenceID)).Value(refValue(id)).PxMilliseconds(ttl).Build())
	}
	var sh putShare
	if s.perTenant > 0 {
		sh.list, sh.ten = s.tenantKey(t.Namespace), s.tenants.get(t.Namespace)
		if sh.ten.renewal(time.Now(), s.renewEvery) {
			sh.renew = ttl + s.renewEvery.Milliseconds()
		}
		sh.at = len(cmds)
		cmds = append(cmds, s.c.B().Rpush().Key(sh.list).Element(id).Build())
		if sh.renew > 0 {
			cmds = append(cmds, s.c.B().Pexpire().Key(sh.list).Milliseconds(sh.renew).Build())
		}
	}
	return cmds, sh
}

// settle gives a failed Put's renewal back: the next lookup renews the
// list's TTL.
func (sh putShare) settle(err error) {
	if err != nil && sh.renew > 0 {
		sh.ten.renewFailed()
	}
}

// tenantKey is the key of the list of a namespace's transactions, oldest
// first, in the namespace's slot on a cluster. (A sorted set under tn:
// before: the list is named anew so that a replica of either kind never
// meets the other's type.)
func (s *Store) tenantKey(ns string) string {
	if s.cluster {
		return s.prefix + "tl:{" + ns + "}"
	}
	return s.prefix + "tl:" + ns
}

// shareScript takes the oldest ids beyond the share (ARGV[1]) out of the
// namespace's list (KEYS[1]) and answers the list's length followed by
// those ids, whose transactions the caller deletes: their keys are not
// the script's to touch (on a cluster they are in other slots, and a
// script is given every key it touches). Concurrent trims each take
// their own ids, the later ones none.
//
// The list holds, oldest first, the ids of the transactions stored, and
// with them those that expired since: every transaction lives MaxAge, so
// the expired are the oldest and go first; the live ones never number
// more than the length.
var shareScript = newScript(`
local n = redis.call('LLEN', KEYS[1])
local over = n - tonumber(ARGV[1])
if over <= 0 then return {n} end
local ids = redis.call('LPOP', KEYS[1], over)
local out = {n - #ids}
for i = 1, #ids do out[i + 1] = ids[i] end
return out`)

// trim deletes the namespace's oldest transactions beyond its share in
// two round trips: shareScript takes their ids out of the list, then
// their keys are deleted, in one DEL on a single Redis and one per key
// on a cluster (each in its own slot). A failure between the two leaves
// transactions out of the list, which live on until their time to live.
func (s *Store) trim(ctx context.Context, list string) error {
	r := shareScript.execMulti(ctx, s.c, rueidis.LuaExec{Keys: []string{list}, Args: []string{s.shareText}})
	vs, err := r[0].ToArray()
	if err != nil || len(vs) == 0 {
		return ClassifyWrite("put (a tenant beyond its share)", cmp.Or(err, errors.New("the share script answered nothing")))
	}
	if len(vs) == 1 {
		return nil
	}
	keys := make([]string, len(vs)-1)
	for i, v := range vs[1:] {
		id, err := v.ToString()
		if err != nil {
			return ClassifyWrite("put (a tenant beyond its share)", err)
		}
		keys[i] = s.txKey(id)
	}
	var dels rueidis.Commands
	if s.cluster {
		for _, k := range keys {
			dels = append(dels, s.c.B().Del().Key(k).Build())
		}
	} else {
		dels = rueidis.Commands{s.c.B().Del().Key(keys...).Build()}
	}
	for _, r := range s.c.DoMulti(ctx, dels...) {
		if err := r.Error(); err != nil {
			return ClassifyWrite("put (a tenant beyond its share)", err)
		}
	}
	return nil
}

// Get returns the transaction with this threeDSServerTransID.
func (s *Store) Get(ctx context.Context, id string) (state.Transaction, error) {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Get().Key(s.txKey(id)).Build()).AsBytes()
	if err != nil {
		return state.Transaction{}, Classify("get", err)
	}
	return decode(id, v)
}

// refValue is what the reference index keeps of a transaction id: its 16
// bytes for a canonical UUID, else the id as text (never 16 bytes long,
// since text ids of 16 characters get a marker).
func refValue(id string) string {
	if b, ok := uuidBytes(id); ok {
		return b
	}
	if len(id) == 16 {
		return "\x00" + id
	}
	return id
}

// idOf reads a reference index value back into a transaction id.
func idOf(v string) string {
	switch {
	case len(v) == 16:
		return uuidString(v)
	case len(v) == 17 && v[0] == 0:
		return v[1:]
	}
	return v
}

// GetByExternalRef returns the newest transaction of the namespace that
// carries this externalReferenceId: the reference's index, then the
// transaction (two reads; a transaction that expires in between is not
// found, as it would be a moment later).
func (s *Store) GetByExternalRef(ctx context.Context, namespace, ref string) (state.Transaction, error) {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Get().Key(s.refKey(namespace, ref)).Build()).ToString()
	if err != nil {
		return state.Transaction{}, Classify("get by reference", err)
	}
	return s.Get(ctx, idOf(v))
}

// casScript replaces a transaction only if it still holds the value the
// change was computed from, keeping its time to live: -1 when it is gone,
// 0 when another change came first, 1 when stored.
var casScript = rueidis.NewLuaScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`)

// maxConflicts bounds the retries of one Update: each retry means another
// change of the same transaction won, and a challenge has few steps.
const maxConflicts = 50

// Update applies fn to the stored transaction by compare-and-set: it reads
// the transaction, applies fn, and stores the result only if nobody
// changed it in between; otherwise it reads again and retries, so fn may
// run more than once. A change fn makes no difference to is not written.
func (s *Store) Update(ctx context.Context, id string, fn func(*state.Transaction) error) (state.Transaction, error) {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	key := s.txKey(id)
	for attempt := 0; ; attempt++ {
		old, err := s.c.Do(ctx, s.c.B().Get().Key(key).Build()).ToString()
		if err != nil {
			return state.Transaction{}, Classify("update", err)
		}
		t, err := decode(id, []byte(old))
		if err != nil {
			return state.Transaction{}, err
		}
		if err := fn(&t); err != nil {
			return state.Transaction{}, err
		}
		next := encode(&t)
		if next == old {
			return t, nil
		}
		n, err := casScript.Exec(ctx, s.c, []string{key}, []string{old, next}).AsInt64()
		switch {
		case err != nil:
			return state.Transaction{}, ClassifyWrite("update", err)
		case n == 1:
			return t, nil
		case n == -1:
			return state.Transaction{}, state.ErrNotFound
		case attempt >= maxConflicts:
			return state.Transaction{}, fmt.Errorf("redisstore: transaction %s changed %d times while being updated", id, attempt)
		}
		// Another change won: let it settle for a moment, then read again.
		if attempt > 2 {
			time.Sleep(time.Duration(rand.IntN(1000*attempt)) * time.Microsecond)
		}
	}
}

// Ping tells whether Redis takes writes now, for the readiness probe: it
// writes a small key with a short time to live, since a Redis at its
// maxmemory still answers PING but refuses writes (an error wrapping
// state.ErrStoreFull). At most every PolicyRecheck it also reads the
// eviction policy again, and answers its *PolicyError while the policy
// is one the sandbox refuses.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	probe := s.c.B().Set().Key(s.prefix + readyKey).Value("1").PxMilliseconds(time.Minute.Milliseconds()).Build()
	if err := s.c.Do(ctx, probe).Error(); err != nil {
		return Classify("readiness probe (a write)", err)
	}
	return s.policy.check(ctx)
}

// CheckPolicy reads Redis's eviction policy (maxmemory-policy) and
// returns a *PolicyError when it evicts any key (allkeys-*). It logs a
// warning for a volatile-* policy, and, once, that the policy cannot be
// read where Redis forbids CONFIG GET (then the sandbox goes on). The
// program calls it at start-up; Ping calls it again now and then.
func (s *Store) CheckPolicy(ctx context.Context) error {
	ctx, cancel := bounded(ctx, s.timeout)
	defer cancel()
	return s.policy.check(ctx)
}
