package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds what only the 3RI channel (deviceChannel 3) needs: the
// prior authentication a 3RI lookup names, and what the lookup's event
// says of it. The lookup itself is the engine's one (LookupEncoded).

// priorField is the member naming a 3RI lookup's prior authentication.
const priorField = "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef"

// prior is what a 3RI lookup learns of the authentication its
// threeDsReqPriorRef names.
type prior struct {
	// ref is the reference as sent, "" when the lookup names none.
	ref string
	// status is the scenario fact priorStatus: the prior transaction's
	// status, scenarios.PriorNone when the sandbox finds none for the
	// token, "" when the lookup names none.
	status string
	// id is the prior's threeDSServerTransID, when found.
	id string
}

// findPrior finds the transaction a 3RI lookup of namespace ns names as
// its prior authentication, settled to the present (an automatic
// decision due since counts).
func (e *Engine) findPrior(ctx context.Context, ns string, req message.LookupRequest) (prior, error) {
	if req.PriorAuth == nil {
		return prior{}, nil
	}
	p := prior{ref: req.PriorAuth.Ref, status: scenarios.PriorNone}
	t, err := e.transactionByEitherID(ctx, ns, strings.ToLower(p.ref))
	if errors.Is(err, state.ErrNotFound) {
		return p, nil
	}
	if err == nil {
		t, err = e.settle(ctx, t)
	}
	if err != nil {
		return prior{}, fmt.Errorf("3RI lookup: prior authentication %s: %w", p.ref, err)
	}
	p.status, p.id = t.Status, t.ThreeDSServerTransID
	return p, nil
}

// transactionByEitherID returns the transaction of namespace ns that id
// names by its acsTransID (EMV's threeDSReqPriorRef, the ACS's id, found
// through the permutation that made it: acsTransIDOf) or by its
// threeDSServerTransID: one Store.Get for an acsTransID, two for the
// other. A device data collection without its lookup is no transaction.
func (e *Engine) transactionByEitherID(ctx context.Context, ns, id string) (state.Transaction, error) {
	if server, ok := serverTransIDOf(id); ok {
		t, err := e.store.Get(ctx, server)
		switch {
		case err == nil && t.ACSTransID == id && t.Namespace == ns && t.Phase != state.PhaseMethod:
			return t, nil
		case err != nil && !errors.Is(err, state.ErrNotFound):
			return state.Transaction{}, err
		}
	}
	t, err := e.store.Get(ctx, id)
	if err == nil && (t.Namespace != ns || t.Phase == state.PhaseMethod) {
		err = state.ErrNotFound
	}
	return t, err
}

// refusePrior is the refusal of a 3RI lookup whose prior authentication
// is unknown (301) or not authenticated (305), unless its scenario sets
// when's priorStatus and so answers it; nil when there is nothing to
// refuse.
func (e *Engine) refusePrior(p prior, sc *scenarios.Scenario) error {
	if p.status == "" || p.status == "Y" || p.status == "A" || sc.When.Sets(scenarios.WhenPriorStatus) {
		return nil
	}
	if p.status == scenarios.PriorNone {
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, fmt.Sprintf(
			"threeDsReqPriorRef %q names no transaction of this token: give the acsTransId (or threeDsServerTransId) of an earlier lookup%s; "+
				"a scenario with when: {priorStatus: none} answers such lookups instead", p.ref, e.expiryHint()), priorField)
	}
	return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction, fmt.Sprintf(
		"threeDsReqPriorRef %q names transaction %s, whose status %s is no authentication (Y or A) a 3RI lookup can rely on; "+
			"a scenario with when: {priorStatus: %s} answers such lookups instead", p.ref, p.id, p.status, p.status), priorField)
}

// threeRIDetail says in words, for the lookup event, what a 3RI lookup
// was for, what it relied on, and how a challenge scenario answered it.
func threeRIDetail(req message.LookupRequest, p prior, sc *scenarios.Scenario, t state.Transaction) string {
	var b strings.Builder
	b.WriteString("3RI lookup, threeRIInd " + req.ThreeRIInd)
	for _, ind := range scenarios.ThreeRIInds(scenarios.Version220) {
		if ind.Code == req.ThreeRIInd {
			b.WriteString(" (" + ind.Name + ")")
		}
	}
	switch p.status {
	case "":
		b.WriteString("; no prior authentication named")
	case scenarios.PriorNone:
		b.WriteString("; prior authentication " + p.ref + ": none of this token found, answered by the scenario's when")
	default:
		fmt.Fprintf(&b, "; prior authentication: transaction %s, status %s", p.id, p.status)
	}
	if sc.Challenge != nil {
		fmt.Fprintf(&b, "; the scenario challenges, and with no cardholder to challenge answers its threeRI result (%s", t.Status)
		if t.StatusReason != "" {
			b.WriteString(", reason " + t.StatusReason)
		}
		b.WriteString(")")
	}
	return b.String()
}
