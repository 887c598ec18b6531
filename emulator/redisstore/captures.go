package redisstore

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Captures keeps the merchants' ddcIds (prefix "dd:" ddcId -> transaction
// id) and the JWT ids their captures used (prefix "jt:" issuer's length,
// issuer, jti), each key with its time to live, so that every replica
// refuses a replayed JWT or a ddcId in use, atomically (SET NX).
type Captures struct {
	c       rueidis.Client
	prefix  string
	timeout time.Duration
}

var _ emulator.Captures = (*Captures)(nil)

// NewCaptures returns the captures kept over client c under prefix
// (DefaultPrefix when empty); every call is bounded by timeout
// (DefaultTimeout when zero).
func NewCaptures(c rueidis.Client, prefix string, timeout time.Duration) (*Captures, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewCaptures needs a client")
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Captures{c: c, prefix: prefix, timeout: timeout}, nil
}

// BindDDC binds ddcID to transaction id unless it is bound already.
func (r *Captures) BindDDC(ctx context.Context, ddcID, id string, ttl time.Duration) (bool, error) {
	return r.setOnce(ctx, "bind a ddcId", r.prefix+"dd:"+ddcID, id, ttl)
}

// DDC returns the transaction id ddcID names.
func (r *Captures) DDC(ctx context.Context, ddcID string) (string, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	id, err := r.c.Do(ctx, r.c.B().Get().Key(r.prefix+"dd:"+ddcID).Build()).ToString()
	if err != nil {
		return "", Classify("read a ddcId", err)
	}
	return id, nil
}

// UseJTI records jti of issuer unless it was recorded already.
func (r *Captures) UseJTI(ctx context.Context, issuer, jti string, ttl time.Duration) (bool, error) {
	return r.setOnce(ctx, "record a JWT id", r.prefix+"jt:"+strconv.Itoa(len(issuer))+":"+issuer+":"+jti, "1", ttl)
}

// setOnce sets key to value for ttl unless it exists.
func (r *Captures) setOnce(ctx context.Context, op, key, value string, ttl time.Duration) (bool, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	err := r.c.Do(ctx, r.c.B().Set().Key(key).Value(value).Nx().PxMilliseconds(max(ttl.Milliseconds(), 1)).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	if err != nil {
		return false, ClassifyWrite(op, err)
	}
	return true, nil
}
