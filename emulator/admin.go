package emulator

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Settled is a transaction as the admin API reads it: brought up to the
// present by its namespace's clock.
type Settled struct {
	state.Transaction
	// Final tells whether no later event can change the result.
	Final bool
	// Changed tells whether this read applied a timeout or an automatic
	// decision that had fallen due (and recorded its event).
	Changed bool
	// Pending tells whether the transaction will change by itself (a
	// timeout or an automatic decision) if nobody acts, Due from Now by
	// its namespace's clock.
	Pending bool
	Due     time.Duration
	// Now is the namespace's now when it was read.
	Now time.Time
}

// Settle reads transaction id of namespace ns for the admin API and
// applies what fell due by the namespace's clock, as the enquiry would.
// An id whose lookup has not come yet answers its device data collection
// (Phase PhaseMethod, under the id the lookup will carry). It returns
// ErrNotFound for an id the namespace does not see: unknown, expired,
// another namespace's or forgotten.
func (e *Engine) Settle(ctx context.Context, ns, id string) (Settled, error) {
	t, err := e.store.Get(ctx, id)
	if errors.Is(err, state.ErrNotFound) && !strings.HasPrefix(id, message.DDCPrefix) {
		t, err = e.store.Get(ctx, message.DDCPrefix+id)
		if err == nil && t.Phase != state.PhaseMethod {
			err = state.ErrNotFound // a collection a lookup used: its transaction is gone
		}
		t.ThreeDSServerTransID = id
	}
	if err == nil && t.Namespace != ns {
		err = state.ErrNotFound
	}
	if err != nil {
		return Settled{}, err
	}
	if t.Phase == state.PhaseMethod {
		now, err := e.clock(ctx, ns)
		return Settled{Transaction: t, Now: now}, err
	}
	sc, err := e.scenarioByID(ctx, ns, t.ScenarioID)
	if err != nil {
		return Settled{}, err
	}
	ch := challengeRules(sc)
	t, changed, now, err := e.settleAt(ctx, t, ch)
	if err != nil {
		return Settled{}, err
	}
	s := Settled{Transaction: t, Final: t.Phase == state.PhaseFinal, Changed: changed, Now: now}
	s.Due, s.Pending = dueIn(t, now, ch, e.cfg)
	return s, nil
}

// ByReference returns the id of the newest transaction of namespace ns
// with the external reference ref, as the enquiry finds it; ErrNotFound
// when it sees none.
func (e *Engine) ByReference(ctx context.Context, ns, ref string) (string, error) {
	t, err := e.store.GetByExternalRef(ctx, ns, ref)
	if err != nil {
		return "", err
	}
	return t.ThreeDSServerTransID, nil
}

// ValidTransactionID tells whether s has the form of a
// threeDSServerTransID: a UUID.
func ValidTransactionID(s string) bool { return message.ValidUUID(s) }
