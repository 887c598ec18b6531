// The fault cards: an ACS that answers wrong on purpose, and what the SDK
// does about it, as docs/app-channel.md's "Fault cards" says a conforming
// SDK does. The SDK's Erro ends the transaction U, reason 07,
// challengeCancel 06, and the enquiry's reasonDesc names its code.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ENCS } from "../exchange.mjs";
import { ChallengeError, READ_TIMEOUT_MS, SignatureError } from "../sdk.mjs";
import { appLookup, assertFinal, assertOutcome, challengeParameters, Sandbox, startChallenge } from "./sandbox.mjs";

/** The challenge's first step, which must fail; answers the ChallengeError. */
async function failing(promise) {
  const err = await promise.then((v) => assert.fail(`the SDK took ${JSON.stringify(v)}`), (e) => e);
  assert.ok(err instanceof ChallengeError, `want a ChallengeError, got ${err?.stack}`);
  return err;
}

/** The SDK's Erro: sent with the code and detail, answered 200 with no body. */
function assertErroSent(err, code, detail) {
  assert.equal(err.errorCode, code, err.message);
  if (detail) assert.equal(err.errorDetail, detail, err.message);
  assert.equal(err.erroSent?.messageType, "Erro");
  assert.equal(err.erroSent.errorComponent, "C");
  assert.equal(err.erroFailed, undefined, `posting the Erro: ${err.erroFailed?.message}`);
  assert.equal(err.erroReply.status, 200, "the ACS answers the SDK's Erro with 200");
  assert.equal(err.erroReply.text, "", "and no body");
}

/** What the SDK's Erro leaves: U, reason 07, challengeCancel 06, the code in reasonDesc. */
async function assertEndedBySdkErro(sb, id, code, description) {
  const e = await assertOutcome(sb, id, { status: "U", reason: "07", cancel: "06" });
  assert.match(e.reasonDesc ?? "", new RegExp(code), "reasonDesc names the SDK's errorCode");
  assert.ok(e.reasonDesc.toLowerCase().includes(description.toLowerCase()), `reasonDesc names the description: ${e.reasonDesc}`);
}

for (const enc of ENCS) {
  describe(`fault cards, ${enc}`, { concurrency: 8 }, () => {
    const cases = [
      { card: "4000000000009615", fault: "wrongCounter", code: "302", detail: "acsCounterAtoS" },
      { card: "4000000000009623", fault: "missingField", code: "201", detail: "challengeInfoHeader" },
      { card: "4000000000009631", fault: "emptyWhyInfo", code: "203", detail: "whyInfoText" },
    ];
    for (const c of cases) {
      test(`${c.card} ${c.fault}: the first CRes is refused with Erro ${c.code} naming ${c.detail}, and the challenge ends`, async () => {
        const sb = new Sandbox(c.fault);
        const { ch, id } = await startChallenge(sb, c.card, { enc });
        const err = await failing(ch.start());
        assert.equal(err.kind, "protocol");
        assertErroSent(err, c.code, c.detail);
        assert.ok(ch.ended);
        await assertEndedBySdkErro(sb, id, c.code, err.erroSent.errorDescription);
      });
    }
  });
}

describe("fault cards", { concurrency: 8 }, () => {
  test("4000000000009649 extraFinalKey: the final CRes with acsUiType is refused with Erro 203; the decision stands", async () => {
    const sb = new Sandbox("extraFinalKey");
    const { ch, id } = await startChallenge(sb, "4000000000009649");
    await ch.start();
    const err = await failing(ch.enter("1234"));
    assert.equal(err.kind, "protocol");
    assertErroSent(err, "203", "acsUiType");
    assert.ok(ch.ended);
    await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
  });

  test("4000000000009656 rogueSignature: the SDK in live mode starts no challenge; the first-CReq timeout ends it", async () => {
    const sb = new Sandbox("rogueSignature-live");
    const { tx, lookup } = await appLookup(sb, "4000000000009656");
    assert.equal(lookup.status, "C");
    await assert.rejects(tx.doChallenge(challengeParameters(lookup)), (err) => {
      assert.ok(err instanceof SignatureError, err.stack);
      assert.match(err.message, /published roots/);
      return true;
    });
    const id = lookup.threeDsServerTransId;
    assert.equal((await sb.enquiry(id)).transactionStatus, "C");
    await sb.advanceClock("11m");
    await assertOutcome(sb, id, { status: "N", reason: "14", cancel: "05", interactions: 0 });
  });

  test("4000000000009656 rogueSignature: in test mode the chain validates against itself and the challenge runs", async () => {
    const sb = new Sandbox("rogueSignature-test");
    const { tx, lookup } = await appLookup(sb, "4000000000009656", { liveMode: false });
    const ch = await tx.doChallenge(challengeParameters(lookup));
    await ch.start();
    assertFinal(await ch.enter("1234"), "Y");
    await assertOutcome(sb, lookup.threeDsServerTransId, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
  });

  test("4000000000009664 slowReply: no CRes within the SDKs' 10 s read timeout", async () => {
    const sb = new Sandbox("slowReply");
    const { ch, id } = await startChallenge(sb, "4000000000009664");
    const err = await failing(ch.start());
    assert.equal(err.kind, "timeout");
    assert.ok(err.ms >= READ_TIMEOUT_MS, `gave up after ${Math.round(err.ms)} ms`);
    assertErroSent(err, "402");
    await assertEndedBySdkErro(sb, id, "402", err.erroSent.errorDescription);
  });

  test("4000000000009672 erro: the first CReq is answered with an Erro 403; the SDK ends with a protocol error", async () => {
    const sb = new Sandbox("erro");
    const { ch, id } = await startChallenge(sb, "4000000000009672");
    const err = await failing(ch.start());
    assert.equal(err.kind, "acsErro", err.message);
    assert.equal(err.acsErro.errorCode, "403");
    assert.equal(err.acsErro.errorComponent, "A");
    assert.equal(err.acsErro.messageType, "Erro");
    for (const k of ["threeDSServerTransID", "acsTransID", "sdkTransID"]) {
      assert.equal(String(err.acsErro[k]).toLowerCase(), String(ch.ids[k]).toLowerCase(), `the Erro's ${k}`);
    }
    assert.equal(err.reply.status, 200);
    assert.match(err.reply.contentType, /^application\/json/);
    assert.ok(ch.ended);
    // The ACS took the CReq before its Erro: the challenge stays open
    // until a timeout ends it.
    assert.equal((await sb.enquiry(id)).transactionStatus, "C");
    await sb.advanceClock("16m");
    await assertOutcome(sb, id, { status: "N", reason: "14", cancel: "04", interactions: 0 });
  });

  test("4000000000009680 notJWE: an answer that is not five JWE parts is read as an Erro and ends the challenge", async () => {
    const sb = new Sandbox("notJWE");
    const { ch, id } = await startChallenge(sb, "4000000000009680");
    const err = await failing(ch.start());
    assert.ok(["acsErro", "protocol"].includes(err.kind), err.message);
    assert.notEqual(ch.log[0].reply.text.trim().split(".").length, 5, "the answer is not five parts");
    assert.ok(ch.ended);
    if (err.kind === "protocol") await assertEndedBySdkErro(sb, id, err.erroSent.errorCode, err.erroSent.errorDescription);
  });
});
