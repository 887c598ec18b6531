package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// A lookup that names a ddcId continues the device data collection made
// under it: this file finds that collection, marks it used and says how
// the lookup took it.

// ddcLink is what a lookup learns of its ddcId.
type ddcLink struct {
	// id is the threeDSServerTransID to continue; "" for a new one.
	id     string
	method state.MethodState
	// compInd is threeDSCompInd for the scenario selectors.
	compInd string
	// flag says what the lookup event notes about the ddcId; the words
	// are made only when an event is recorded (detail).
	flag  ddcFlag
	ddcID string
	sent  string // threeDSCompInd as the Requestor sent it
}

// ddcFlag is what a lookup event notes about its ddcId.
type ddcFlag uint8

const (
	ddcLinked    ddcFlag = iota // continues a collection, as sent
	ddcUnknown                  // names no collection of the token
	ddcReused                   // names a collection an earlier lookup used
	ddcOtherCard                // names a collection made for another card
	ddcDisagree                 // continues a collection; the Requestor's threeDSCompInd differs
	ddcNone                     // a lookup without a ddcId (3RI): no collection to continue
)

// detail says in words how the lookup took its ddcId.
func (l ddcLink) detail() string {
	switch l.flag {
	// Constants: every lookup without a collection says so, at no cost
	// on the hot path; the ddcId and threeDSCompInd are in the request the
	// event keeps.
	case ddcUnknown:
		return "the ddcId names no device data collection of this token: new transaction, threeDSCompInd as sent (U when absent)"
	case ddcReused:
		return "the ddcId names a device data collection an earlier lookup used: new transaction, threeDSCompInd as sent (U when absent)"
	case ddcOtherCard:
		return "the ddcId names a device data collection made for another card: new transaction, threeDSCompInd as sent (U when absent)"
	case ddcNone:
		return ""
	}
	d := "continues device data collection " + l.ddcID + ", threeDSCompInd " + l.compInd
	if l.flag == ddcDisagree {
		d += fmt.Sprintf("; threeDSCompInd %s sent, %s seen by the server (which the scenario matches on)", l.sent, l.compInd)
	}
	return d
}

// linkCollection finds the collection a lookup's ddcId names and marks it
// used, atomically: each collection continues one lookup. An unknown or
// reused ddcId starts a new transaction and is flagged in the event, or,
// with Config.StrictDDC, refuses the lookup.
func (e *Engine) linkCollection(ctx context.Context, ns string, req message.LookupRequest, call APICall) (ddcLink, error) {
	if req.DDCID == "" { // a channel without a device data collection
		return ddcLink{flag: ddcNone}, nil
	}
	compInd := req.ThreeDSCompInd
	if compInd == "" {
		compInd = "U"
	}
	unknown := ddcLink{compInd: compInd, flag: ddcUnknown, ddcID: req.DDCID}
	key, err := e.collectionKey(ctx, ns, call.CaptureTenant, req.DDCID)
	if err != nil {
		return ddcLink{}, fmt.Errorf("lookup: device data collection %s: %w", req.DDCID, err)
	}
	if key == "" {
		return e.strictDDC(unknown, req.DDCID, false)
	}
	t, reused, claimedFrom, err := e.markCollectionUsed(ctx, ns, key, req.ThreeDSCompInd, req.Card.CardNumber)
	switch {
	case errors.Is(err, state.ErrNotFound):
		return e.strictDDC(unknown, req.DDCID, false)
	case errors.Is(err, errOtherCard):
		unknown.flag = ddcOtherCard
		if e.cfg.StrictDDC {
			return ddcLink{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
				fmt.Sprintf("ddcId %q was made for %s, not this lookup's card: collect again for this card (strict ddcId checking is on)", req.DDCID, collectionCard(t)),
				"card.cardNumber,ddcId")
		}
		return unknown, nil
	case err != nil:
		return ddcLink{}, fmt.Errorf("lookup: device data collection %s: %w", req.DDCID, err)
	case reused:
		unknown.flag = ddcReused
		return e.strictDDC(unknown, req.DDCID, true)
	}
	link := ddcLink{id: strings.TrimPrefix(t.ThreeDSServerTransID, message.DDCPrefix), method: t.Method, compInd: t.Method.CompInd,
		ddcID: req.DDCID, sent: req.ThreeDSCompInd}
	link.method.DDCID = req.DDCID
	if req.ThreeDSCompInd != "" && req.ThreeDSCompInd != t.Method.CompInd {
		link.flag = ddcDisagree
	}
	if claimedFrom != "" {
		e.emit(ctx, state.Event{Namespace: ns, Kind: state.EventDDC, Transaction: collectionSummary(t), Detail: fmt.Sprintf(
			"this token's lookup claims the device data capture of ddcId %s, made by merchant %s with a JWT no configured secret verified; its earlier events are in the namespace of that merchant",
			req.DDCID, t.Method.Merchant)})
	}
	return link, nil
}

// errOtherCard is markCollectionUsed's refusal of a collection made for
// another card than the lookup's.
var errOtherCard = errors.New("device data collection made for another card")

// markCollectionUsed settles threeDSCompInd on the collection stored
// under key (unless its capture settled it already) and marks it used,
// in one Update; reused reports a collection an earlier lookup used (left
// unchanged), errOtherCard one made for another card (left unchanged, and
// returned so its masked card can be named). A claimable capture of
// another namespace is claimed for ns: claimedFrom is the namespace it
// came from. It is a function of its own so that the closure's captures
// cost a lookup without a collection nothing.
func (e *Engine) markCollectionUsed(ctx context.Context, ns, key, sent, pan string) (t state.Transaction, reused bool, claimedFrom string, err error) {
	var other state.Transaction
	t, err = e.store.Update(ctx, key, func(t *state.Transaction) error {
		claimedFrom = "" // fn may run again after a conflicting write
		if t.Phase != state.PhaseMethod || t.Namespace != ns && !t.Method.Claimable {
			return state.ErrNotFound
		}
		if reused = t.Method.Used; reused {
			return nil
		}
		if !captureCard(*t, pan) {
			other = *t
			return errOtherCard
		}
		if t.Namespace != ns {
			claimedFrom, t.Namespace = t.Namespace, ns
		}
		t.Method.Claimable = false
		t.Method.Used = true
		if t.Method.CompInd == "" {
			t.Method.CompInd = settledCompInd(t.Method)
		}
		t.Method.RequestorCompInd = sent
		return nil
	})
	if errors.Is(err, errOtherCard) {
		return other, false, "", err
	}
	return t, reused, claimedFrom, err
}

// collectionCard names the card a collection was made for, masked: its
// number, or for a capture of a BIN alone, the BIN.
func collectionCard(t state.Transaction) string {
	if t.Method.PartialCard {
		return "cards of BIN " + t.CardBIN
	}
	return "card " + t.MaskedPAN()
}

// captureCard reports whether pan is a card a collection continues: the
// card it was made for (sameCard), or for a capture made from a BIN
// alone, any card of that BIN.
func captureCard(t state.Transaction, pan string) bool {
	if t.Method.PartialCard {
		return len(pan) >= message.FullCardDigits && strings.HasPrefix(pan, t.CardBIN)
	}
	return sameCard(t, pan)
}

// sameCard reports whether pan is the card a transaction was made for,
// as far as the transaction keeps it: its BIN, length and last four
// digits (no full card number is stored).
func sameCard(t state.Transaction, pan string) bool {
	var c state.Transaction
	c.SetCard(pan, "")
	return len(pan) >= 4 && c.PANLength == t.PANLength && c.CardBIN == t.CardBIN && c.PANLast4 == t.PANLast4
}

// strictDDC refuses an unknown or reused ddcId under --strict-ddc, and
// passes l on otherwise.
func (e *Engine) strictDDC(l ddcLink, ddcID string, reused bool) (ddcLink, error) {
	if !e.cfg.StrictDDC {
		return l, nil
	}
	if reused {
		return ddcLink{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			fmt.Sprintf("ddcId %q was used by an earlier lookup: make a new device data collection (strict ddcId checking is on)", ddcID), "ddcId")
	}
	return ddcLink{}, emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
		fmt.Sprintf("ddcId %q names no device data collection of this token (capture at /V2/ddcCollect or POST /authentication/ddc first; strict ddcId checking is on)", ddcID), "ddcId")
}
