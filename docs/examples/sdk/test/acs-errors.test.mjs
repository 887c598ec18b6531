// CReqs the ACS must refuse with an Erro, changing nothing of the
// transaction (docs/app-channel.md, "Errors on the exchange"): after each,
// the enquiry still says C and the next right CReq is still taken. Then the
// SDK's own Erro, which ends the transaction.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { CompactEncrypt } from "jose";
import { b64u, ENCS, unb64u } from "../exchange.mjs";
import { JSON_TYPE, ProtocolError } from "../sdk.mjs";
import { assertErro, assertFinal, assertOutcome, postCReq, Sandbox, startChallenge, WRONG_CODE } from "./sandbox.mjs";

const CARD = "4000000000009102";

/** Flips one bit of part `i` of a compact JWE. */
function tamper(compact, i) {
  const parts = compact.split(".");
  const bytes = unb64u(parts[i]);
  bytes[bytes.length - 1] ^= 0x01;
  parts[i] = b64u(bytes);
  return parts.join(".");
}

/** A challenge opened by its first CReq; the next CReq is 001. */
async function opened(label, enc) {
  const sb = new Sandbox(label);
  const c = await startChallenge(sb, CARD, { enc });
  await c.ch.start();
  return { sb, ...c };
}

/** Nothing changed: still C, not final, and CReq `counter` (a wrong code) is answered with CRes `counter`. */
async function assertUnchanged(sb, id, ch, counter = 1) {
  const e = await sb.enquiry(id);
  assert.equal(e.transactionStatus, "C", "the transaction is unchanged");
  assert.equal((await sb.transaction(id)).final, false);
  assert.equal(ch.sdkCounter, counter, "the SDK's own counter");
  const screen = await ch.enter(WRONG_CODE);
  assert.equal(screen.acsCounterAtoS, String(counter).padStart(3, "0"), "the ACS still waits for this counter");
  assert.equal(screen.challengeInfoTextIndicator, "Y", "the wrong code counts: the refused CReq did not");
  assert.match(screen.challengeInfoText, /\b2\b/, "two attempts left: the refused CReq used none");
}

for (const enc of ENCS) {
  describe(`refused CReqs, ${enc}`, { concurrency: 16 }, () => {
    test("a replayed CReq: 302, and the counter stays", async () => {
      const { sb, ch, id } = await opened("replay", enc);
      const { reply } = await postCReq(ch, ch.log[0].compact);
      assertErro(reply, "302", ch, { detail: "sdkCounterStoA" });
      await assertUnchanged(sb, id, ch);
    });

    test("a counter that jumps: 302", async () => {
      const { sb, ch, id } = await opened("jump", enc);
      const { reply } = await postCReq(ch, ch.creq({ challengeDataEntry: "1234" }, 2));
      assertErro(reply, "302", ch, { detail: "sdkCounterStoA" });
      await assertUnchanged(sb, id, ch);
    });

    test("a first CReq that is not 000: 302", async () => {
      const sb = new Sandbox("first-001");
      const { ch, id } = await startChallenge(sb, CARD, { enc });
      const { reply } = await postCReq(ch, ch.creq({}, 1));
      assertErro(reply, "302", ch, { detail: "sdkCounterStoA" });
      assert.equal((await ch.start()).acsCounterAtoS, "000", "the first CReq is still 000");
      assert.equal((await sb.enquiry(id)).transactionStatus, "C");
    });

    for (const [part, name] of [[4, "tag"], [3, "ciphertext"], [2, "IV"]]) {
      test(`a changed ${name}: 302, and a right copy is still taken`, async () => {
        const { sb, ch, id } = await opened(`tamper-${name}`, enc);
        const body = ch.creq({ challengeDataEntry: "1234" });
        const compact = await ch.seal(body);
        const { reply } = await postCReq(ch, tamper(compact, part));
        assertErro(reply, "302", ch, { ids: false });
        assert.equal((await sb.enquiry(id)).transactionStatus, "C");
        const good = await postCReq(ch, compact);
        assert.equal(good.reply.status, 200);
        const cres = await ch.read(good.reply, 1);
        assertFinal(cres, "Y");
        await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
      });
    }

    test("a kid that names no transaction: 301", async () => {
      const { sb, ch, id } = await opened("kid", enc);
      const compact = await ch.seal(ch.creq({ challengeDataEntry: "1234" }), { kid: randomUUID() });
      const { reply } = await postCReq(ch, compact);
      assertErro(reply, "301", ch, { ids: false });
      await assertUnchanged(sb, id, ch);
    });

    test("an sdkTransID that is not the lookup's: 301", async () => {
      const { sb, ch, id } = await opened("sdktransid", enc);
      const { reply } = await postCReq(ch, { ...ch.creq({ challengeDataEntry: "1234" }), sdkTransID: randomUUID() });
      assertErro(reply, "301", ch, { ids: false });
      await assertUnchanged(sb, id, ch);
    });

    test("a CReq after the end: 305", async () => {
      const { sb, ch, id } = await opened("after-end", enc);
      assertFinal(await ch.enter("1234"), "Y");
      const { reply } = await postCReq(ch, ch.creq({ challengeDataEntry: "1234" }, 2));
      assertErro(reply, "305", ch);
      await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
    });

    test("a plaintext that is not a JSON object: 101", async () => {
      const { sb, ch, id } = await opened("not-object", enc);
      const { reply } = await postCReq(ch, await ch.seal("[1,2]", { counter: 1 }));
      assertErro(reply, "101", ch, { ids: false });
      await assertUnchanged(sb, id, ch);
    });

    test("messageType CRes: 101", async () => {
      const { sb, ch, id } = await opened("messagetype", enc);
      const { reply } = await postCReq(ch, { ...ch.creq({ challengeDataEntry: "1234" }), messageType: "CRes" });
      assertErro(reply, "101", ch);
      await assertUnchanged(sb, id, ch);
    });

    test("another messageVersion: 102", async () => {
      const { sb, ch, id } = await opened("version", enc);
      const { reply } = await postCReq(ch, { ...ch.creq({ challengeDataEntry: "1234" }), messageVersion: "2.1.0" });
      assertErro(reply, "102", ch);
      await assertUnchanged(sb, id, ch);
    });

    test("no sdkCounterStoA: 201 naming it", async () => {
      const { sb, ch, id } = await opened("no-counter", enc);
      const { sdkCounterStoA, ...body } = ch.creq({ challengeDataEntry: "1234" });
      const { reply } = await postCReq(ch, await ch.seal(body, { counter: Number(sdkCounterStoA) }));
      assertErro(reply, "201", ch, { detail: "sdkCounterStoA" });
      await assertUnchanged(sb, id, ch);
    });

    test("an sdkCounterStoA of one digit: 203", async () => {
      const { sb, ch, id } = await opened("counter-format", enc);
      const { reply } = await postCReq(ch, { ...ch.creq({ challengeDataEntry: "1234" }), sdkCounterStoA: "1" });
      assertErro(reply, "203", ch, { detail: "sdkCounterStoA" });
      await assertUnchanged(sb, id, ch);
    });

    test("challengeCancel 09, no such code: 203", async () => {
      const { sb, ch, id } = await opened("cancel-format", enc);
      const { reply } = await postCReq(ch, ch.creq({ challengeCancel: "09" }));
      assertErro(reply, "203", ch, { detail: "challengeCancel" });
      await assertUnchanged(sb, id, ch);
    });
  });
}

describe("refused CReqs, whatever the enc", { concurrency: 16 }, () => {
  test("not a JWE: 101", async () => {
    const { sb, ch, id } = await opened("not-jwe", "A128CBC-HS256");
    const { reply } = await postCReq(ch, "this is no JWE");
    assertErro(reply, "101", ch, { ids: false });
    await assertUnchanged(sb, id, ch);
  });

  test("a header that is not JSON: 101", async () => {
    const { sb, ch, id } = await opened("header-not-json", "A128CBC-HS256");
    const parts = ch.log[0].compact.split(".");
    parts[0] = b64u(new TextEncoder().encode("{not json"));
    const { reply } = await postCReq(ch, parts.join("."));
    assertErro(reply, "101", ch, { ids: false });
    await assertUnchanged(sb, id, ch);
  });

  test("an enc not taken (A256GCM): 203", async () => {
    const { sb, ch, id } = await opened("enc-a256gcm", "A128CBC-HS256");
    const body = new TextEncoder().encode(JSON.stringify(ch.creq({ challengeDataEntry: "1234" })));
    const compact = await new CompactEncrypt(body).setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: ch.ids.acsTransID }).encrypt(ch.key);
    const { reply } = await postCReq(ch, compact);
    assertErro(reply, "203", ch, { ids: false });
    await assertUnchanged(sb, id, ch);
  });

  test("an alg not taken (A128KW): 203", async () => {
    const { sb, ch, id } = await opened("alg-a128kw", "A128CBC-HS256");
    const body = new TextEncoder().encode(JSON.stringify(ch.creq({ challengeDataEntry: "1234" })));
    const compact = await new CompactEncrypt(body).setProtectedHeader({ alg: "A128KW", enc: "A128CBC-HS256", kid: ch.ids.acsTransID }).encrypt(ch.key.slice(0, 16));
    const { reply } = await postCReq(ch, compact);
    assertErro(reply, "203", ch, { ids: false });
    await assertUnchanged(sb, id, ch);
  });
});

describe("the SDK's own Erro", { concurrency: 8 }, () => {
  for (const enc of ENCS) {
    test(`${enc}: answered 200 with no body; the transaction ends U, 07, challengeCancel 06; a CReq after it: 305`, async () => {
      const { sb, ch, id } = await opened(`sdk-erro-${enc}`, enc);
      const problem = new ProtocolError("201", "challengeInfoLabel", "a screen the SDK cannot draw");
      const { message, reply } = await ch.postErro(problem);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.text, "", "no body");
      const e = await assertOutcome(sb, id, { status: "U", reason: "07", cancel: "06" });
      assert.match(e.reasonDesc ?? "", /\b201\b/, `reasonDesc names the SDK's errorCode: ${e.reasonDesc}`);
      assert.ok((e.reasonDesc ?? "").toLowerCase().includes(message.errorDescription.toLowerCase()), `reasonDesc names its description: ${e.reasonDesc}`);
      const { reply: after } = await postCReq(ch, ch.creq({ challengeDataEntry: "1234" }, 1));
      assertErro(after, "305", ch);
    });
  }

  test("an Erro naming no transaction: the ACS's Erro 301, and the test's challenge goes on", async () => {
    const { sb, ch, id } = await opened("sdk-erro-unknown", "A128CBC-HS256");
    const stray = { ...ch.erro(new ProtocolError("201", "challengeInfoLabel", "stray")), threeDSServerTransID: randomUUID(), acsTransID: randomUUID() };
    const reply = await ch.post(JSON.stringify(stray), JSON_TYPE);
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.contentType, /^application\/json;\s*charset=utf-8$/i, "an Erro is plain JSON");
    const m = JSON.parse(reply.text);
    assert.deepEqual([m.messageType, m.errorCode, m.errorComponent, m.errorMessageType], ["Erro", "301", "A", "Erro"], reply.text);
    await assertUnchanged(sb, id, ch);
  });
});
