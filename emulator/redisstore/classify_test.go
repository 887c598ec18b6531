package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// TestClassifyWrite: a write that timed out or lost its connection may
// have been applied, and its SY02 says so; one that never reached Redis
// changed nothing, and its SY02 says that.
func TestClassifyWrite(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name        string
		err         error
		maybe       bool
		wantMessage string
	}{
		{"timeout", context.DeadlineExceeded, true, "may not have been applied"},
		{"timeout inside the client", fmt.Errorf("rueidis: %w", context.DeadlineExceeded), true, "check with the enquiry"},
		{"connection reset after sending", errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"), true, "may not have been applied"},
		{"connection refused", refused, false, "nothing was changed"},
		{"refused, as text", errors.New("dial tcp 127.0.0.1:6379: connect: connection refused"), false, "nothing was changed"},
		{"a cluster's slot without a primary", rueidis.ErrNoSlot, false, "nothing was changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := redisstore.ClassifyWrite("put", tt.err)
			if !errors.Is(err, state.ErrUnavailable) {
				t.Fatalf("ClassifyWrite(%v) = %v, want it to wrap ErrUnavailable", tt.err, err)
			}
			if got := errors.Is(err, state.ErrMaybeApplied); got != tt.maybe {
				t.Errorf("ClassifyWrite(%v) wraps ErrMaybeApplied: %v, want %v", tt.err, got, tt.maybe)
			}
			e, ok := emulator.AsError(err)
			if !ok || e.Code != emv.CodeStoreUnavailable || e.EMVCode != "403" {
				t.Fatalf("AsError(%v) = %+v, want SY02 / EMV 403", err, e)
			}
			if !strings.Contains(e.Message, tt.wantMessage) {
				t.Errorf("message %q lacks %q", e.Message, tt.wantMessage)
			}
		})
	}
	if err := redisstore.ClassifyWrite("put", nil); err != nil {
		t.Errorf("ClassifyWrite(nil) = %v, want nil", err)
	}
	if err := redisstore.ClassifyWrite("put", errors.New("ERR wrong number of arguments")); errors.Is(err, state.ErrUnavailable) {
		t.Errorf("a command error is %v, want it not to be unavailable", err)
	}
}
