// The SDK's own checks, without a sandbox: acsSignedContent against test
// chains, every CRes check the docs ask of an SDK, and the Erro it posts,
// against the ACS of fake-acs.mjs; the HTML form of acsUiType 05.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ENCS } from "../exchange.mjs";
import { checkCRes, FINAL_KEYS, ProtocolError, REQUIRED_BY_UI_TYPE } from "../cres.mjs";
import { formData, HTML_ACTION, parseForm } from "../html.mjs";
import { verifyAcsSignedContent, verifyChain } from "../signature.mjs";
import { ChallengeError, createTransaction, SignatureError } from "../sdk.mjs";
import { certs, sign, startFakeAcs } from "./fake-acs.mjs";

// A directory server as GET /sdk/directory-servers has one, with the
// fixtures' root; its key is an EC key made here (nothing decrypts it).
const subtle = globalThis.crypto.subtle;
const dsKey = await subtle.exportKey("jwk", (await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])).publicKey);
const directoryServer = {
  directoryServerId: "F155545342",
  encryptionKey: { kty: "EC", crv: "P-256", x: dsKey.x, y: dsKey.y, kid: "test-ec", use: "enc" },
  rootCertificates: [certs.root.der],
};

describe("acsSignedContent's chain", () => {
  const roots = { rootCertificates: [certs.root.der] };
  const cases = [
    { name: "leaf, intermediate: under the root", x5c: [certs.leaf.der, certs.inter.der], ok: true },
    { name: "leaf, intermediate, root: the root itself", x5c: [certs.leaf.der, certs.inter.der, certs.root.der], ok: true },
    { name: "a leaf directly under the root", x5c: [certs.direct.der], ok: true },
    { name: "a rogue root's leaf", x5c: [certs.rogueLeaf.der], ok: false, error: /published roots/ },
    { name: "a rogue chain ending in its own root", x5c: [certs.rogueLeaf.der, certs.rogue.der], ok: false, error: /published roots/ },
    { name: "the intermediate left out", x5c: [certs.leaf.der], ok: false, error: /published roots/ },
    { name: "the chain out of order", x5c: [certs.inter.der, certs.leaf.der], ok: false, error: /not issued/ },
    { name: "a leaf issued by a leaf", x5c: [certs.underLeaf.der, certs.direct.der], ok: false, error: /a CA/ },
    { name: "no certificate", x5c: [], ok: false, error: /non-empty/ },
    { name: "not DER", x5c: ["bm90IGEgY2VydA=="], ok: false, error: /not a DER/ },
  ];
  for (const c of cases) {
    test(c.name, () => {
      if (c.ok) assert.equal(verifyChain(c.x5c, roots).length, c.x5c.length);
      else assert.throws(() => verifyChain(c.x5c, roots), c.error);
    });
  }
  test("test mode takes a chain that validates against itself, not a broken one", () => {
    assert.ok(verifyChain([certs.rogueLeaf.der, certs.rogue.der], { liveMode: false }));
    assert.throws(() => verifyChain([certs.inter.der, certs.leaf.der], { liveMode: false }), /not issued/);
  });
  test("a certificate out of its dates is refused", () => {
    assert.throws(() => verifyChain([certs.direct.der], { ...roots, now: new Date("2200-01-01") }), /not valid at/);
  });
  test("the signature must be the leaf's", async () => {
    const jws = await sign({ a: 1 }, { leaf: certs.rogueLeaf, x5c: [certs.leaf.der, certs.inter.der] });
    await assert.rejects(verifyAcsSignedContent(jws, roots), /does not verify/);
  });
  test("an alg other than ES256 or PS256 is refused", async () => {
    await assert.rejects(verifyAcsSignedContent("eyJhbGciOiJIUzI1NiJ9.e30.c2ln", roots), /alg HS256/);
  });
});

describe("the CRes checks", () => {
  const ids = { threeDSServerTransID: "a", acsTransID: "b", sdkTransID: "c", messageVersion: "2.2.0", counter: 1 };
  const base = { threeDSServerTransID: "a", acsTransID: "b", sdkTransID: "c", messageType: "CRes", messageVersion: "2.2.0", acsCounterAtoS: "001" };
  const screen = { ...base, challengeCompletionInd: "N", acsUiType: "01", challengeInfoHeader: "h", challengeInfoLabel: "l", challengeInfoText: "t", submitAuthenticationLabel: "s" };
  const finalCRes = { ...base, challengeCompletionInd: "Y", transStatus: "Y" };
  const cases = [
    ["an interim text screen", screen, null],
    ["a final CRes", finalCRes, null],
    ["ids in upper case", { ...finalCRes, acsTransID: "B" }, null],
    ["not an object", [1], ["101", "CRes"]],
    ["messageType Erro", { ...screen, messageType: "Erro" }, ["101", "messageType"]],
    ["another messageVersion", { ...screen, messageVersion: "2.1.0" }, ["102", "messageVersion"]],
    ["another sdkTransID", { ...screen, sdkTransID: "x" }, ["301", "sdkTransID"]],
    ["no acsTransID", { ...screen, acsTransID: undefined }, ["201", "acsTransID"]],
    ["the counter of the CReq before", { ...screen, acsCounterAtoS: "000" }, ["302", "acsCounterAtoS"]],
    ["the counter ahead", { ...screen, acsCounterAtoS: "002" }, ["302", "acsCounterAtoS"]],
    ["a counter of one digit", { ...screen, acsCounterAtoS: "1" }, ["203", "acsCounterAtoS"]],
    ["no challengeCompletionInd", { ...screen, challengeCompletionInd: undefined }, ["201", "challengeCompletionInd"]],
    ["a final CRes with acsUiType", { ...finalCRes, acsUiType: "01" }, ["203", "acsUiType"]],
    ["a final CRes without transStatus", { ...finalCRes, transStatus: undefined }, ["201", "transStatus"]],
    ["a final CRes with transStatus U", { ...finalCRes, transStatus: "U" }, ["203", "transStatus"]],
    ["no acsUiType", { ...screen, acsUiType: undefined }, ["201", "acsUiType"]],
    ["acsUiType 06", { ...screen, acsUiType: "06" }, ["203", "acsUiType"]],
    ["no challengeInfoHeader", { ...screen, challengeInfoHeader: undefined }, ["201", "challengeInfoHeader"]],
    ["an empty whyInfoText", { ...screen, whyInfoText: "" }, ["203", "whyInfoText"]],
    ["an empty resendInformationLabel", { ...screen, resendInformationLabel: "" }, ["203", "resendInformationLabel"]],
    ["a select screen without choices", { ...screen, acsUiType: "02" }, ["201", "challengeSelectInfo"]],
    ["choices that are not one-key objects", { ...screen, acsUiType: "03", challengeSelectInfo: [{ 1: "a", 2: "b" }] }, ["203", "challengeSelectInfo"]],
    ["an oob screen without oobContinueLabel", { ...screen, acsUiType: "04" }, ["201", "oobContinueLabel"]],
    ["an HTML screen without acsHTML", { ...base, challengeCompletionInd: "N", acsUiType: "05" }, ["201", "acsHTML"]],
    ["acsHTML not base64url", { ...base, challengeCompletionInd: "N", acsUiType: "05", acsHTML: "<html>" }, ["203", "acsHTML"]],
    ["an image without URLs", { ...screen, psImage: { medium: 3 } }, ["203", "psImage"]],
    ["whitelistingInfoText of 65 characters", { ...screen, whitelistingInfoText: "x".repeat(65) }, ["203", "whitelistingInfoText"]],
  ];
  for (const [name, cres, want] of cases) {
    test(name, () => {
      if (!want) return assert.equal(checkCRes(cres, ids), cres);
      assert.throws(() => checkCRes(cres, ids), (err) => {
        assert.ok(err instanceof ProtocolError, err.message);
        assert.deepEqual([err.errorCode, err.errorDetail], want);
        return true;
      });
    });
  }
  test("the final keys and the screens' needs are the docs'", () => {
    assert.deepEqual([...FINAL_KEYS].sort(), ["acsCounterAtoS", "acsTransID", "challengeCompletionInd", "messageExtension", "messageType", "messageVersion", "sdkTransID", "threeDSServerTransID", "transStatus"]);
    assert.deepEqual(Object.keys(REQUIRED_BY_UI_TYPE), ["01", "02", "03", "04", "05"]);
  });
});

describe("the SDK against an ACS that answers wrong", { concurrency: 1 }, () => {
  let acs;
  before(async () => {
    acs = await startFakeAcs();
  });
  after(() => acs.close());

  async function challenge({ enc = "A128CBC-HS256", ivs = "random", readTimeoutMs, answer = (c) => c, signWith, liveMode } = {}) {
    acs.answer = answer;
    acs.erros.length = 0;
    acs.creqs.length = 0;
    const tx = await createTransaction({ directoryServer, readTimeoutMs, liveMode });
    const params = tx.authenticationRequestParameters();
    const res = await acs.lookup(params, { signWith });
    return tx.doChallenge(res, { enc, ivs });
  }

  for (const enc of ENCS) {
    test(`${enc}: a screen, a wrong code, the right one; counters and ids`, async () => {
      const ch = await challenge({ enc, ivs: "counter" });
      const first = await ch.start();
      assert.equal(first.acsCounterAtoS, "000");
      const wrong = await ch.enter("0000");
      assert.equal(wrong.challengeInfoTextIndicator, "Y");
      const last = await ch.enter("1234");
      assert.deepEqual([last.challengeCompletionInd, last.transStatus, last.acsCounterAtoS], ["Y", "Y", "002"]);
      assert.deepEqual(acs.creqs.map((c) => c.creq.sdkCounterStoA), ["000", "001", "002"]);
      assert.ok(acs.creqs.every((c) => c.header.kid === ch.ids.acsTransID && c.header.enc === enc && c.header.alg === "dir"));
      assert.equal(acs.creqs[0].creq.challengeDataEntry, undefined, "the first CReq carries no entry");
      assert.ok(ch.ended);
      await assert.rejects(ch.enter("1234"), /has ended/);
      assert.equal(acs.erros.length, 0);
    });
  }

  const faults = [
    ["acsCounterAtoS 001 on the first CRes", (c) => ({ ...c, acsCounterAtoS: "001" }), "302", "acsCounterAtoS"],
    ["no challengeInfoHeader", (c) => ({ ...c, challengeInfoHeader: undefined }), "201", "challengeInfoHeader"],
    ["an empty whyInfoText", (c) => ({ ...c, whyInfoText: "" }), "203", "whyInfoText"],
    ["another sdkTransID", (c) => ({ ...c, sdkTransID: "00000000-0000-4000-8000-000000000000" }), "301", "sdkTransID"],
    ["another messageVersion", (c) => ({ ...c, messageVersion: "2.1.0" }), "102", "messageVersion"],
    ["an answer in the other enc", (c) => ({ cres: c, enc: "A128GCM" }), "203", "enc"],
    ["a body that is neither a JWE nor JSON", () => ({ raw: "a.b.c" }), "101", "CRes"],
    ["a JWE that does not decrypt", () => ({ raw: "eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4Q0JDLUhTMjU2In0..AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA" }), "302", "CRes"],
  ];
  for (const [name, answer, code, detail] of faults) {
    test(`${name}: Erro ${code} to the ACS, and the challenge ends`, async () => {
      const ch = await challenge({ answer });
      const err = await ch.start().then(() => null, (e) => e);
      assert.ok(err instanceof ChallengeError, `want a ChallengeError, got ${err}`);
      assert.equal(err.kind, "protocol");
      assert.deepEqual([err.errorCode, err.errorDetail], [code, detail]);
      assert.equal(acs.erros.length, 1);
      const { message, contentType } = acs.erros[0];
      assert.match(contentType, /^application\/json/);
      assert.deepEqual(
        [message.messageType, message.errorCode, message.errorComponent, message.errorDetail, message.errorMessageType],
        ["Erro", code, "C", detail, "CRes"],
      );
      assert.equal(message.acsTransID, ch.ids.acsTransID);
      assert.equal(err.erroReply.status, 200);
      assert.ok(ch.ended);
    });
  }

  test("a final CRes with acsUiType: Erro 203 naming it", async () => {
    const ch = await challenge({ answer: (c) => (c.challengeCompletionInd === "Y" ? { ...c, acsUiType: "01" } : c) });
    await ch.start();
    const err = await ch.enter("1234").then(() => null, (e) => e);
    assert.deepEqual([err?.errorCode, err?.errorDetail], ["203", "acsUiType"]);
  });

  test("an Erro from the ACS ends the challenge, with no Erro back", async () => {
    const erro = { messageType: "Erro", errorCode: "403", errorComponent: "A", errorDescription: "Transient System Failure", errorDetail: "ACS", messageVersion: "2.2.0" };
    const ch = await challenge({ answer: () => ({ raw: JSON.stringify(erro), contentType: "application/json; charset=UTF-8" }) });
    const err = await ch.start().then(() => null, (e) => e);
    assert.equal(err?.kind, "acsErro");
    assert.equal(err.acsErro.errorCode, "403");
    assert.equal(acs.erros.length, 0);
    assert.ok(ch.ended);
  });

  test("no answer within the read timeout: the SDK gives up and posts Erro 402", async () => {
    const ch = await challenge({ readTimeoutMs: 300, answer: () => ({ hold: true }) });
    const err = await ch.start().then(() => null, (e) => e);
    assert.equal(err?.kind, "timeout");
    assert.equal(err.errorCode, "402");
    assert.ok(err.ms >= 300, `gave up after ${err.ms} ms`);
    assert.equal(acs.erros[0]?.message.errorCode, "402");
  });

  test("a rogue signature: no challenge in live mode; test mode takes it", async () => {
    const signWith = { leaf: certs.rogueLeaf, x5c: [certs.rogueLeaf.der, certs.rogue.der] };
    await assert.rejects(challenge({ signWith }), SignatureError);
    assert.equal(acs.creqs.length, 0, "no CReq sent");
    const ch = await challenge({ signWith, liveMode: false });
    assert.equal((await ch.start()).acsCounterAtoS, "000");
  });

  test("acsSignedContent with another sdkEphemPubKey is refused", async () => {
    acs.answer = (c) => c;
    const tx = await createTransaction({ directoryServer });
    const params = tx.authenticationRequestParameters();
    const res = await acs.lookup(params, { payload: { sdkEphemPubKey: { ...params.sdkEphemPubKey, x: params.sdkEphemPubKey.y } } });
    await assert.rejects(tx.doChallenge(res), /not the key this SDK sent/);
  });
});

describe("the HTML screen's form", () => {
  const page = `<html><body><form method="post" action="${HTML_ACTION}">
    <input type="hidden" name="step" value="a&amp;b">
    <input type="text" name="entry" autocomplete="one-time-code">
    <label><input type="checkbox" name="choice" value="Lyon"> Lyon</label>
    <label><input type="checkbox" name="choice" value="Porto"> Porto</label>
    <button type="submit" name="action" value="otp" data-action="otp">Submit</button>
    <button type="submit" name="action" value="resend" data-action="resend">New code</button>
  </form></body></html>`;
  test("the action, the fields and the buttons", () => {
    const form = parseForm(page);
    assert.equal(form.action, HTML_ACTION);
    assert.equal(form.method, "post");
    assert.deepEqual(form.inputs.map((i) => i.name), ["step", "entry", "choice", "choice"]);
    assert.deepEqual(form.buttons.map((b) => b.value), ["otp", "resend"]);
  });
  test("challengeHTMLDataEntry: hidden fields, the entry, the choices, the button", () => {
    const form = parseForm(page);
    assert.equal(formData(form, { entry: "1234", action: "otp" }), "step=a%26b&entry=1234&action=otp");
    assert.equal(formData(form, { choices: ["Porto"], action: "resend" }), "step=a%26b&entry=&choice=Porto&action=resend");
    assert.equal(formData(form, { action: "cancel" }), "step=a%26b&entry=&action=cancel", "no such button: the action field");
  });
});
