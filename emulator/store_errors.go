package emulator

import (
	"errors"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// AsError returns err as an *Error when it is (or wraps) one. An error
// wrapping ErrStoreFull becomes the error CodeStoreFull: nothing was
// changed, and retrying will not help until memory is freed (EMV 404,
// permanent system failure, as far as the caller can tell). An error
// wrapping ErrUnavailable becomes the error CodeStoreUnavailable: a
// transient system failure (EMV 403) that a retry may cure. When the
// failure was a write that timed out (ErrMaybeApplied), the message says
// that the change may or may not have been made.
func AsError(err error) (*emv.Error, bool) {
	if e, ok := emv.As(err); ok {
		return e, true
	}
	if errors.Is(err, state.ErrStoreFull) {
		return emv.NewError(emv.CodeStoreFull, emv.EMVPermanentFailure,
			"the sandbox's shared state store is full (Redis reached its maxmemory) and refuses changes; nothing was changed, "+
				"and retrying will not help until its operator frees memory or raises maxmemory", "store"), true
	}
	if errors.Is(err, state.ErrMaybeApplied) {
		return emv.NewError(emv.CodeStoreUnavailable, emv.EMVTransientFailure,
			"the sandbox's shared state store did not confirm the change in time; it may not have been applied, "+
				"or may have been: check with the enquiry before trying again", "store"), true
	}
	if errors.Is(err, state.ErrUnavailable) {
		return emv.NewError(emv.CodeStoreUnavailable, emv.EMVTransientFailure,
			"the sandbox's shared state store is unreachable or too slow; nothing was changed, try again", "store"), true
	}
	return nil, false
}
