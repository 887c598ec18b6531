package emulator

import (
	"context"
	"fmt"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// match picks the scenario of a request for namespace ns.
// The namespace's runtime scenarios win over the catalogue.
func (e *Engine) match(ctx context.Context, ns string, r scenarios.Request) (*scenarios.Scenario, error) {
	rt, err := e.cfg.Runtime.Catalogue(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("runtime scenarios: %w", err)
	}
	if rt != nil {
		if sc := rt.Match(r); sc != nil {
			return sc, nil
		}
	}
	return e.cfg.Catalogue().Match(r), nil
}

// scenarioByID finds a scenario visible to namespace ns: its own runtime
// scenarios first, then the catalogue; nil when there is none (any more).
func (e *Engine) scenarioByID(ctx context.Context, ns, id string) (*scenarios.Scenario, error) {
	rt, err := e.cfg.Runtime.Catalogue(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("runtime scenarios: %w", err)
	}
	if rt != nil {
		if sc, ok := rt.ByID(id); ok {
			return sc, nil
		}
	}
	sc, _ := e.cfg.Catalogue().ByID(id)
	return sc, nil
}

// negotiateVersion picks the protocol version of a transaction: the lower
// of the Requestor's messageVersion and the highest the scenario's ACS
// supports.
func negotiateVersion(requested, acs string) string {
	if acs == "" {
		acs = DefaultVersion
	}
	if requested != "" && requested < acs {
		return requested
	}
	return acs
}

// scenarioRequest is what scenario selectors see of a lookup of a card of
// scheme.
func scenarioRequest(r message.LookupRequest, scheme string) scenarios.Request {
	sr := scenarios.Request{
		CardScheme:      scheme,
		CardNumber:      r.Card.CardNumber,
		CardholderName:  r.Card.CardholderName,
		ChallengeInd:    r.ThreeDSRequestorChallengeInd,
		MessageVersion:  r.MessageVersion,
		MessageCategory: r.MessageCategory,
		AuthInd:         r.ThreeDSRequestorAuthInd,
		ThreeRIInd:      r.ThreeRIInd,
	}
	if r.Purchase != nil {
		sr.Amount, sr.Currency = r.Purchase.Amount, r.Purchase.CurrencyCode
	}
	return sr
}

// scenarioError turns a scenario's error result into the engine's Error.
// Without a detail of its own, a version error (EMV 102) names
// messageVersion.
func scenarioError(s *scenarios.ErrorResult) *emv.Error {
	detail := s.Detail
	if detail == "" && s.EMVErrorCode == "102" {
		detail = "messageVersion"
	}
	e := emv.NewError(emv.ErrorCode(s.ErrorCode), s.EMVErrorCode, s.Message, detail)
	e.HTTPStatus = s.HTTPStatus
	if s.Status != "" {
		e.Status = s.Status
	}
	if s.Component != "" {
		e.Component = s.Component
	}
	if s.Description != "" {
		e.Description = s.Description
	}
	return e
}
