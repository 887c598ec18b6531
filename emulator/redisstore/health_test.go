package redisstore_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestFull: a Redis at its maxmemory under noeviction refuses every write
// of every part with an error wrapping ErrStoreFull (503 SY04, EMV 404,
// "full"), not "unavailable, try again"; reads still answer; Ping fails
// while writes are refused, though Redis answers PING, and passes again
// once they succeed.
func TestFull(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{Policy: "noeviction"})
	c := connect(t, srv)
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := redisstore.NewRuntime(c, redisstore.RuntimeOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := redisstore.NewSessions(c, redisstore.SessionsOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Put(ctx, statetest.Transaction("ns", "id-before", "ORD-B")); err != nil {
		t.Fatal(err)
	}
	if err := srv.Do("CONFIG", "SET", "maxmemory", "1"); err != nil {
		t.Fatal(err)
	}
	writes := map[string]func() error{
		"Put with a reference":    func() error { return s.Put(ctx, statetest.Transaction("ns", "id-full", "ORD-F")) },
		"Put without a reference": func() error { return s.Put(ctx, statetest.Transaction("ns", "id-full-2", "")) },
		"Update": func() error {
			_, err := s.Update(ctx, "id-before", func(t *state.Transaction) error { t.Status = "N"; return nil })
			return err
		},
		"Runtime.Add": func() error {
			_, err := rt.Add(ctx, "ns", []byte("scenarios:\n  - id: f\n    match: {cardNumber: \"4111111111111111\"}\n    frictionless: {status: Y}\n"))
			return err
		},
		"Sessions.Create": func() error {
			_, err := sessions.Create(ctx, state.Session{TokenHash: "0123456789abcdef", Namespace: "ns"}, time.Hour)
			return err
		},
		"Ping": func() error { return s.Ping(ctx) },
	}
	for name, write := range writes {
		err := write()
		if !errors.Is(err, state.ErrStoreFull) {
			t.Errorf("%s with Redis full: %v, want ErrStoreFull", name, err)
			continue
		}
		e, ok := emulator.AsError(err)
		if !ok || e.Code != emv.CodeStoreFull || e.EMVCode != emv.EMVPermanentFailure ||
			!strings.Contains(e.Message, "full") || strings.Contains(e.Message, "try again") {
			t.Errorf("%s: AsError = %+v, want SY04 / EMV 404 saying the store is full", name, e)
		}
	}
	if got, err := s.Get(ctx, "id-before"); err != nil || got.Status != "C" {
		t.Errorf("Get with Redis full: %+v, %v; want the stored transaction, unchanged", got, err)
	}
	if _, err := s.Get(ctx, "id-full"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("the refused Put left a transaction: %v", err)
	}
	if _, err := rt.List(ctx, "ns"); err != nil {
		t.Errorf("runtime scenarios read with Redis full: %v", err)
	}
	if err := srv.Do("CONFIG", "SET", "maxmemory", "0"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping with memory back: %v", err)
	}
	if err := s.Put(ctx, statetest.Transaction("ns", "id-after", "ORD-A")); err != nil {
		t.Errorf("Put with memory back: %v", err)
	}
}

func TestJudgePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy  string
		refused bool
		warning string
	}{
		{"noeviction", false, ""},
		{"allkeys-lru", true, ""},
		{"allkeys-lfu", true, ""},
		{"allkeys-random", true, ""},
		{"volatile-lru", false, "time to live"},
		{"volatile-ttl", false, "acknowledged transactions can vanish"},
		{"volatile-random", false, "noeviction"},
		{"some-future-policy", false, "does not know"},
	}
	for _, tt := range tests {
		warning, refused := redisstore.JudgePolicy(tt.policy)
		var pe *redisstore.PolicyError
		if got := errors.As(refused, &pe); got != tt.refused {
			t.Errorf("JudgePolicy(%s) refused = %v, want %v", tt.policy, refused, tt.refused)
		}
		if tt.refused {
			msg := refused.Error()
			for _, want := range []string{tt.policy, "CONFIG SET maxmemory-policy noeviction", "redis.conf"} {
				if !strings.Contains(msg, want) {
					t.Errorf("JudgePolicy(%s) = %q, lacks %q", tt.policy, msg, want)
				}
			}
		}
		if !strings.Contains(warning, tt.warning) || (tt.warning == "") != (warning == "") {
			t.Errorf("JudgePolicy(%s) warning = %q, want one with %q", tt.policy, warning, tt.warning)
		}
	}
}

// TestCheckPolicy: against a real Redis, the start-up check refuses an
// allkeys-* policy, warns about a volatile-* one, says once that the
// policy cannot be read where CONFIG is forbidden and goes on; Ping reads
// the policy again now and then, refuses a change to allkeys-* and takes
// it back when the policy is mended.
func TestCheckPolicy(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	ctx := context.Background()
	store := func(t *testing.T, url string) (*redisstore.Store, *testkit.Buffer) {
		t.Helper()
		c, err := redisstore.Connect(ctx, url, patient, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		var log testkit.Buffer
		// Every Ping reads the policy again, so no test waits for a recheck.
		s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient, PolicyRecheck: time.Nanosecond,
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return s, &log
	}
	setPolicy := func(p string) {
		t.Helper()
		if err := srv.Do("CONFIG", "SET", "maxmemory-policy", p); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("allkeys refused", func(t *testing.T) {
		setPolicy("allkeys-lru")
		s, _ := store(t, srv.URL)
		var pe *redisstore.PolicyError
		if err := s.CheckPolicy(ctx); !errors.As(err, &pe) || pe.Policy != "allkeys-lru" {
			t.Errorf("CheckPolicy under allkeys-lru = %v, want a PolicyError", err)
		}
	})
	t.Run("volatile warned", func(t *testing.T) {
		setPolicy("volatile-ttl")
		s, log := store(t, srv.URL)
		if err := s.CheckPolicy(ctx); err != nil {
			t.Errorf("CheckPolicy under volatile-ttl = %v, want nil", err)
		}
		if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "volatile-ttl") {
			t.Errorf("no warning naming volatile-ttl:\n%s", log)
		}
	})
	t.Run("CONFIG forbidden", func(t *testing.T) {
		setPolicy("allkeys-lru") // unseen: the user may not read it
		if err := srv.Do("ACL", "SETUSER", "managed", "on", ">secret", "~*", "&*", "+@all", "-config"); err != nil {
			t.Fatal(err)
		}
		s, log := store(t, "redis://managed:secret@"+srv.Addr+"/0")
		if err := s.CheckPolicy(ctx); err != nil {
			t.Errorf("CheckPolicy without CONFIG = %v, want nil (go on)", err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping without CONFIG = %v", err)
		}
		if n := strings.Count(log.String(), "cannot read Redis's eviction policy"); n != 1 {
			t.Errorf("said %d times that the policy cannot be read, want once:\n%s", n, log)
		}
	})
	t.Run("changed at run time", func(t *testing.T) {
		setPolicy("noeviction")
		s, log := store(t, srv.URL)
		if err := s.CheckPolicy(ctx); err != nil {
			t.Fatal(err)
		}
		setPolicy("allkeys-lfu")
		var pe *redisstore.PolicyError
		if err := s.Ping(ctx); !errors.As(err, &pe) || pe.Policy != "allkeys-lfu" {
			t.Errorf("Ping after a change to allkeys-lfu = %v, want its PolicyError", err)
		}
		if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "not ready") {
			t.Errorf("the change is not logged as an error:\n%s", log)
		}
		setPolicy("noeviction")
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping after the policy was mended = %v", err)
		}
	})
}
