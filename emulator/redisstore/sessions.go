package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Sessions keeps the console's sessions in Redis, one key each (prefix
// "cs:" id) with the session's time to live, so every replica knows them
// and a restart keeps them.
type Sessions struct {
	c       rueidis.Client
	prefix  string
	timeout time.Duration
}

var _ emulator.SessionStore = (*Sessions)(nil)

// NewSessions returns the sessions kept over client c under prefix
// (DefaultPrefix when empty); every call is bounded by timeout
// (DefaultTimeout when zero).
func NewSessions(c rueidis.Client, prefix string, timeout time.Duration) (*Sessions, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewSessions needs a client")
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Sessions{c: c, prefix: prefix + "cs:", timeout: timeout}, nil
}

// Create opens a session.
func (r *Sessions) Create(ctx context.Context, token string, ttl time.Duration) (string, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	id := emulator.NewSessionID()
	err := r.c.Do(ctx, r.c.B().Set().Key(r.prefix+id).Value(token).Px(ttl).Build()).Error()
	return id, Classify("create a console session", err)
}

// Token returns the token of a live session.
func (r *Sessions) Token(ctx context.Context, id string) (string, bool, error) {
	if !emulator.ValidSessionID(id) {
		return "", false, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	tok, err := r.c.Do(ctx, r.c.B().Get().Key(r.prefix+id).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, Classify("read a console session", err)
	}
	return tok, true, nil
}

// Delete ends a session.
func (r *Sessions) Delete(ctx context.Context, id string) error {
	if !emulator.ValidSessionID(id) {
		return nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	return Classify("end a console session", r.c.Do(ctx, r.c.B().Del().Key(r.prefix+id).Build()).Error())
}
