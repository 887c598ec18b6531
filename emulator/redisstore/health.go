package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// DefaultPolicyRecheck is how often, at most, the readiness probe reads
// Redis's eviction policy again (Options.PolicyRecheck).
const DefaultPolicyRecheck = 15 * time.Second

// readyKey is the key the readiness probe writes (under the prefix): a
// full Redis still answers PING, so only a write tells that it takes
// writes.
const readyKey = "ready"

// PolicyError is an eviction policy (maxmemory-policy) under which Redis
// drops keys the sandbox has acknowledged: transactions, the references
// that point at them, runtime scenarios and their bookkeeping. The
// sandbox refuses to start over it, and a running replica reports itself
// not ready once it sees it.
type PolicyError struct {
	// Policy is the maxmemory-policy Redis reported, e.g. allkeys-lru.
	Policy string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("Redis evicts keys under maxmemory-policy %s: when it reaches its maxmemory it drops acknowledged transactions, "+
		"their references and runtime scenarios, and lookups change outcome; set the policy to noeviction "+
		"(CONFIG SET maxmemory-policy noeviction, and maxmemory-policy noeviction in redis.conf), "+
		"under which a full Redis refuses new writes with a clear error instead", e.Policy)
}

// JudgePolicy tells what an eviction policy means for the sandbox:
// refused is a *PolicyError for the allkeys-* policies, which evict any
// key; warning is said for the volatile-* ones, which evict keys with a
// time to live (the sandbox gives one to every transaction, reference,
// session and journal entry, so they can evict acknowledged transactions
// too) and for a policy it does not know; nothing for noeviction.
func JudgePolicy(policy string) (warning string, refused error) {
	switch {
	case policy == "noeviction":
		return "", nil
	case strings.HasPrefix(policy, "allkeys-"):
		return "", &PolicyError{Policy: policy}
	case strings.HasPrefix(policy, "volatile-"):
		return fmt.Sprintf("Redis evicts keys under maxmemory-policy %s: it drops keys that have a time to live, and every transaction, "+
			"reference, console session and journal entry of the sandbox has one, so acknowledged transactions can vanish when Redis "+
			"reaches its maxmemory; noeviction is recommended (CONFIG SET maxmemory-policy noeviction)", policy), nil
	}
	return fmt.Sprintf("Redis reports maxmemory-policy %q, which the sandbox does not know; noeviction is recommended "+
		"(CONFIG SET maxmemory-policy noeviction)", policy), nil
}

// readPolicy asks Redis for its maxmemory-policy (CONFIG GET): on a
// cluster, every node it knows (each primary and replica holds its own
// setting), answering the worst: an allkeys-* policy before any other,
// any other before noeviction.
func readPolicy(ctx context.Context, c rueidis.Client) (string, error) {
	if !IsCluster(c) {
		return readNodePolicy(ctx, c)
	}
	worst := ""
	for _, n := range c.Nodes() {
		p, err := readNodePolicy(ctx, n)
		if err != nil {
			return "", err // as it is: a refused CONFIG GET is told by its type
		}
		switch {
		case worst == "", strings.HasPrefix(p, "allkeys-") && !strings.HasPrefix(worst, "allkeys-"),
			worst == "noeviction" && p != "noeviction":
			worst = p
		}
	}
	if worst == "" {
		return "", fmt.Errorf("the cluster client knows no node")
	}
	return worst, nil
}

// readNodePolicy asks one server for its maxmemory-policy.
func readNodePolicy(ctx context.Context, c rueidis.Client) (string, error) {
	m, err := c.Do(ctx, c.B().ConfigGet().Parameter("maxmemory-policy").Build()).AsStrMap()
	if err != nil {
		return "", err
	}
	p, ok := m["maxmemory-policy"]
	if !ok {
		return "", fmt.Errorf("CONFIG GET maxmemory-policy answered no value")
	}
	return p, nil
}

// policyWatch keeps the eviction policy last read and reads it again at
// most every interval, logging each change once.
type policyWatch struct {
	c     rueidis.Client
	log   *slog.Logger
	every time.Duration

	mu         sync.Mutex
	checked    bool      // read once (or found unreadable)
	next       time.Time // when the policy may be read again
	policy     string    // as last read
	refused    error     // the *PolicyError of policy, if any
	unreadable bool      // CONFIG GET is refused: not asked again
}

// check reads the policy when it is due (always the first time), logs
// what changed (but a refusal on the first read, which the caller
// reports) and returns the *PolicyError of a refused policy. A Redis
// that forbids CONFIG GET (managed services) is logged once and never
// asked again; a Redis that does not answer keeps the last verdict.
func (w *policyWatch) check(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if w.unreadable || (w.checked && now.Before(w.next)) {
		return w.refused
	}
	w.next = now.Add(w.every)
	policy, err := readPolicy(ctx, w.c)
	if err != nil {
		if _, isReply := rueidis.IsRedisErr(err); isReply {
			w.unreadable, w.checked = true, true
			w.log.Warn("cannot read Redis's eviction policy (CONFIG GET maxmemory-policy refused, as managed services do); "+
				"make sure it is noeviction, else Redis may drop acknowledged transactions when full", slog.Any("err", err))
		}
		return w.refused
	}
	if w.checked && policy == w.policy {
		return w.refused
	}
	first := !w.checked
	w.checked, w.policy = true, policy
	warning, refused := JudgePolicy(policy)
	w.refused = refused
	switch {
	case refused != nil && first:
		// The first check is the start-up's, which reports the refusal.
	case refused != nil:
		w.log.Error(refused.Error()+"; this replica reports itself not ready until the policy changes", slog.String("maxmemory_policy", policy))
	case warning != "":
		w.log.Warn(warning, slog.String("maxmemory_policy", policy))
	default:
		w.log.Info("Redis refuses writes when full rather than evict", slog.String("maxmemory_policy", policy))
	}
	return refused
}
