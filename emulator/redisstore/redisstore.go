// Package redisstore keeps everything the sandbox keeps beyond a request
// in Redis (or Valkey), so that several replicas serve the same
// transactions and a restart loses none of them: the transactions and
// their externalReferenceId index (Store), the runtime scenarios of each
// token (Runtime), each token's clock and forgetting (Namespaces), the
// console's journal (Journal) and its sign-in sessions (Sessions), the
// merchants' ddcIds and used JWT ids (Captures), the result callbacks'
// registrations and outbox (Callbacks). It is the only package of the
// sandbox that speaks to Redis. Each part passes the same contract tests
// (package statetest) as its twin in package memstore.
//
// Keys, under a prefix ("3ds:" by default; on a Redis Cluster with hash
// tags, see keyspace in keys.go):
//
//	t:{threeDSServerTransID}   a transaction: a format byte, then its record (package record); TTL MaxAge
//	r:{len}:{namespace}:{ref}  the newest transaction id of an externalReferenceId in a namespace; TTL MaxAge
//	tl:{namespace}             list: the namespace's transaction ids, oldest first, for its share; TTL MaxAge and a period
//	s:{namespace}              hash: runtime scenario id -> order, selector key and its own document
//	sk:{namespace}             hash: selector key -> scenario id (a namespace holds each selector once)
//	sv:{namespace}             counter, bumped by every change of the namespace's runtime scenarios
//	sb:{namespace}             the bytes of the namespace's runtime scenario documents
//	sns                        set of the namespaces that hold runtime scenarios
//	sbt                        the bytes of every namespace's runtime scenario documents
//	n:{namespace}              a namespace's clock offset and generation, "offset generation" (see Namespaces); TTL MaxAge
//	n:changed                  the channel on which changes of namespace states are published
//	j:{namespace}:...          the console journal of a namespace (see Journal)
//	j:changed                  the channel on which journal changes are published
//	csd, cse, csn, csx         the console sessions: by id, by end, each token's count and its sessions by end (see Sessions)
//	dd:{hash}, ddt:{hash}      a merchant's ddcId and each tenant's set of them, by keyed hash (see Captures)
//	jt:{hash}, jtt:{hash}      a JWT id a capture used and each tenant's set of them, by keyed hash
//	cb:u, cb:k                 the result callbacks' URLs and signing keys by namespace (see Callbacks)
//	cb:d, cb:o:{ns}, cb:…      the callbacks' outbox: its deliveries, each namespace's queue, the turns (see outbox.go)
//	ready                      written by the readiness probe (a full Redis answers PING); TTL 1 minute
//
// Every change is one atomic step (a Lua script or a MULTI), so no
// replica ever reads half of a change, but for a lookup's transaction,
// its reference and its place in its share: three commands written
// together without MULTI (Put says what that gives up), and a share's
// trim: its list, then the transactions it ends. On a cluster, where no
// step spans two slots, a capture's entry and its tenant's set are two
// steps too. A transaction is updated by
// compare-and-set: of many concurrent decisions on one challenge, exactly
// one wins.
//
// Redis must not evict: under maxmemory-policy noeviction a full Redis
// refuses writes, and a write refused so returns an error wrapping
// state.ErrStoreFull (nothing was changed); Store.CheckPolicy refuses
// the allkeys-* policies, which would drop acknowledged transactions.
//
// A --store naming any node of a Redis Cluster gets a cluster client,
// and the keys hash tags so that every atomic step touches one slot (see
// keyspace in keys.go).
//
// A call that cannot reach Redis within its timeout returns an error
// wrapping state.ErrUnavailable. A read changes nothing; a write that
// was sent but not confirmed in time may have been applied, and its error
// also wraps state.ErrMaybeApplied.
package redisstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Defaults of Options.
const (
	DefaultPrefix  = "3ds:"
	DefaultTimeout = 2 * time.Second
)

// DefaultFlushDelay is ConnectOptions.FlushDelay's default: under load a
// Redis then reads about a dozen lookups per wake-up instead of two, and
// spends less CPU per lookup; a lookup waits at most this long more, and
// only while others are in flight (docs/redis-scale.md has the figures).
const DefaultFlushDelay = time.Millisecond

// Connect opens a client for a redis:// (or rediss:// for TLS) URL,
// redis://[user:password@]host:port/db, and checks that the server answers
// within timeout. It retries for as long as wait allows (0: once), so a
// replica may start before its Redis.
func Connect(ctx context.Context, rawURL string, timeout, wait time.Duration) (rueidis.Client, error) {
	return ConnectWith(ctx, rawURL, ConnectOptions{Timeout: timeout, Wait: wait})
}

// ConnectOptions set up ConnectWith.
type ConnectOptions struct {
	// Timeout bounds the dial, each write and the first PING
	// (DefaultTimeout when 0); Wait is how long to keep trying (0: once).
	Timeout, Wait time.Duration
	// RootCAs, when not nil, are the only authorities trusted to sign the
	// certificate of a rediss:// server. When nil, the system's are, or
	// where the system has none (a scratch image), the roots the program
	// carries (golang.org/x/crypto/x509roots/fallback in the binary).
	RootCAs *x509.CertPool
	// FlushDelay is the longest the client holds commands back, while
	// other requests' commands are on their way, before it writes them
	// to Redis together: see DefaultFlushDelay and docs/redis-scale.md.
	// A request alone is never held back. 0 writes at once.
	FlushDelay time.Duration
}

// ErrUntrusted is the failure of a rediss:// server whose certificate is
// not trusted (unknown authority, wrong host, expired): waiting does not
// mend it, so ConnectWith gives up at once.
var ErrUntrusted = errors.New("the server's TLS certificate is not trusted")

// ErrCluster is the refusal of a setting a Redis Cluster cannot serve: a
// database other than 0 in the URL (a cluster has only database 0), or
// a key prefix holding a brace (a hash tag of its own). It is refused at
// start-up rather than left failing request by request. See
// docs/redis-scale.md.
var ErrCluster = errors.New("this Redis is a node of a Redis Cluster (cluster_enabled:1)")

// inCluster tells a server with cluster mode on, from INFO cluster; a
// server that does not answer it (a proxy, a command renamed away) is
// taken as not in a cluster.
func inCluster(ctx context.Context, c rueidis.Client) bool {
	info, err := c.Do(ctx, c.B().Info().Section("cluster").Build()).ToString()
	return err == nil && strings.Contains(info, "cluster_enabled:1")
}

// ConnectWith is Connect with every setting: see ConnectOptions.
func ConnectWith(ctx context.Context, rawURL string, o ConnectOptions) (rueidis.Client, error) {
	opt, err := rueidis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL %s: %w", Redact(rawURL), err)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if o.RootCAs != nil {
		if opt.TLSConfig == nil {
			return nil, fmt.Errorf("store URL %s: certificate authorities are given, but the URL is not rediss:// (TLS)", Redact(rawURL))
		}
		opt.TLSConfig.RootCAs = o.RootCAs
	}
	opt.DisableCache = true
	// One address: a single client, made a cluster client below if the
	// server is a node of a cluster. Several (?addr=host:port, the other
	// nodes of a cluster, so that start-up does not hang on one): the
	// client finds out itself.
	opt.ForceSingleClient = len(opt.InitAddress) == 1
	opt.Dialer.Timeout = timeout
	opt.ConnWriteTimeout = timeout
	opt.ClientName = "threeds-sandbox"
	// One connection per node, and a pause of at most FlushDelay between
	// its writes while requests overlap: concurrent lookups reach Redis
	// in one write, and Redis, whose cost on a busy replica is mostly
	// waking up and reading, reads a dozen lookups at a time instead of
	// two (docs/redis-scale.md).
	opt.PipelineMultiplex = -1
	opt.MaxFlushDelay = o.FlushDelay
	deadline := time.Now().Add(o.Wait)
	for {
		c, err := rueidis.NewClient(opt)
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			err = ping(pctx, c)
			if err == nil && !IsCluster(c) && inCluster(pctx, c) {
				cancel()
				c.Close()
				// Any node names the cluster: a cluster client learns the
				// others and sends each key to the primary of its slot.
				if opt.SelectDB != 0 {
					return nil, fmt.Errorf("store %s: %w, which has only database 0: drop /%d from the URL", Redact(rawURL), ErrCluster, opt.SelectDB)
				}
				copt := opt
				copt.ForceSingleClient = false
				c, err = rueidis.NewClient(copt)
				if err == nil {
					pctx, cancel = context.WithTimeout(ctx, timeout)
					err = ping(pctx, c)
				}
			}
			cancel()
			if err == nil {
				return c, nil
			}
			if c != nil {
				c.Close()
			}
		}
		if err != nil && strings.Contains(err.Error(), "SELECT is not allowed in cluster mode") {
			// A cluster node refused the database of the URL at once.
			return nil, fmt.Errorf("store %s: %w, which has only database 0: drop /%d from the URL", Redact(rawURL), ErrCluster, opt.SelectDB)
		}
		if untrusted(err) {
			return nil, fmt.Errorf("store %s: %w: %v", Redact(rawURL), ErrUntrusted, err)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("store %s does not answer: %w", Redact(rawURL), err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ping checks that the store answers: a single server, or on a cluster
// any node the cluster named. A cluster client sends a command without a
// key (PING) to any address it holds, the URL's too: one of them down
// (?addr= lists it so that a replica starts without it) would fail the
// check by chance.
func ping(ctx context.Context, c rueidis.Client) error {
	if !IsCluster(c) {
		return c.Do(ctx, c.B().Ping().Build()).Error()
	}
	err := errors.New("the cluster client knows no node")
	for _, n := range c.Nodes() {
		if err = n.Do(ctx, n.B().Ping().Build()).Error(); err == nil {
			return nil
		}
	}
	return err
}

// untrusted tells a failed verification of the server's certificate.
func untrusted(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}

// Redact returns a store URL without its password, for messages and logs.
func Redact(rawURL string) string {
	at := strings.LastIndex(rawURL, "@")
	scheme := strings.Index(rawURL, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return rawURL
	}
	user := rawURL[scheme+3 : at]
	if name, _, ok := strings.Cut(user, ":"); ok {
		return rawURL[:scheme+3] + name + ":***" + rawURL[at:]
	}
	return rawURL
}

// Classify turns an error of the Redis client into what the engine
// understands, for every part kept in Redis: a nil reply is ErrNotFound;
// a write refused for want of memory (OOM: maxmemory reached under
// noeviction) wraps ErrStoreFull and ErrUnavailable; a network failure,
// a timeout or a server that cannot serve now (loading, read-only
// replica, a cluster's slot without a primary or moving) wraps
// ErrUnavailable; anything else is returned with its
// context.
func Classify(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case rueidis.IsRedisNil(err):
		return state.ErrNotFound
	case outOfMemory(err):
		return fmt.Errorf("%w: %w: redis %s: %v", state.ErrUnavailable, state.ErrStoreFull, op, err)
	case unavailable(err):
		return fmt.Errorf("%w: redis %s: %v", state.ErrUnavailable, op, err)
	}
	return fmt.Errorf("redis %s: %w", op, err)
}

// ClassifyWrite is Classify for a call that changes state: when the
// write may have reached Redis before the failure (a timeout or a lost
// connection, not a refused one), its error also wraps
// state.ErrMaybeApplied, since Redis may have applied it.
func ClassifyWrite(op string, err error) error {
	if err == nil || !unavailable(err) || rueidis.IsRedisNil(err) || neverSent(err) {
		return Classify(op, err)
	}
	return fmt.Errorf("%w: %w: redis %s: %v", state.ErrUnavailable, state.ErrMaybeApplied, op, err)
}

// neverSent tells a failure that happened before a command could reach
// the server: a refused or unresolvable connection, or a server error
// reply (loading, out of memory...), which Redis sends instead of
// running the command.
func neverSent(err error) bool {
	if _, ok := rueidis.IsRedisErr(err); ok {
		return true
	}
	if errors.Is(err, rueidis.ErrNoSlot) || errors.Is(err, rueidis.ErrNoAddr) {
		return true // no node to send it to
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host")
}

// outOfMemory tells Redis's refusal of a write at its maxmemory: the
// error reply OOM, also when a script's call got it (Redis 7 keeps the
// prefix, Redis 6 wraps it in ERR Error running script).
func outOfMemory(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return false
	}
	msg := re.Error()
	return strings.HasPrefix(msg, "OOM") || strings.Contains(msg, "OOM command not allowed")
}

func unavailable(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, rueidis.ErrClosing) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, rueidis.ErrNoSlot) || errors.Is(err, rueidis.ErrNoAddr) {
		return true
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		for _, p := range []string{"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS", "MOVED", "ASK"} {
			if strings.HasPrefix(re.Error(), p) {
				return true
			}
		}
		return false
	}
	// Connection resets, EOFs and dial failures come as plain errors.
	msg := err.Error()
	for _, p := range []string{"connection refused", "connection reset", "broken pipe", "EOF", "i/o timeout", "no such host"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// bounded gives ctx a deadline at most timeout away.
func bounded(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= timeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}
