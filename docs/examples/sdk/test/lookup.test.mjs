// The app lookup, POST /authentication/app, as a merchant's backend sends
// it with the SDK's parameters (docs/app-channel.md, "The app lookup"):
// what a frictionless and a challenge card answer, acsSignedContent and its
// chain, sdkEncData to each kind of key, the device information's platform
// and locale, the render options, and the requests it refuses.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeProtectedHeader } from "jose";
import { verifyAcsSignedContent } from "../signature.mjs";
import { appLookup, assertFinal, assertOutcome, challengeParameters, eciOf, Sandbox, schemeDirectoryServer, startChallenge } from "./sandbox.mjs";

const FRICTIONLESS = "4000000000009003";
const CHALLENGE = "4000000000009102";
const SELECT = "4000000000009326";
const ANDROID_ONLY = "4000000000009698";

/** The lookup answered 200 with `status`. */
function assertStatus(res, status) {
  assert.equal(res.status, 200, `lookup: ${res.text}`);
  assert.equal(res.json.status, status, `lookup: ${res.text}`);
}

/** The error body of a refused lookup: the HTTP status, the EMV code and component, the field named. */
function assertRefused(res, { http = 400, emvCode, component, field, errorCode }) {
  assert.equal(res.status, http, res.text);
  const { emvError } = res.json ?? {};
  assert.ok(emvError, `an error body with emvError: ${res.text}`);
  if (errorCode) assert.equal(res.json.errorCode, errorCode, res.text);
  if (emvCode) assert.equal(emvError.emvErrorCode, emvCode, res.text);
  if (component) assert.equal(emvError.emvErrorComponent, component, res.text);
  if (field) assert.ok(emvError.emvErrorDetail.split(",").includes(field), `emvErrorDetail names ${field}: ${res.text}`);
}

describe("the app lookup", { concurrency: 8 }, () => {
  test("a frictionless card answers at once, with the SDK's transaction id", async () => {
    const sb = new Sandbox("frictionless");
    const { tx, res } = await appLookup(sb, FRICTIONLESS);
    assertStatus(res, "Y");
    assert.equal(res.json.sdkTransId?.toLowerCase(), tx.sdkTransID.toLowerCase());
    assert.equal(res.json.eci, eciOf("VISA", "Y"));
    for (const k of ["acsSignedContent", "challengeHtml", "hostedChallengeUrl"]) assert.equal(res.json[k], undefined, k);
  });

  test("a challenge card answers C with acsSignedContent under the scheme's root, and no page", async () => {
    const sb = new Sandbox("challenge");
    const { tx, res, lookup } = await appLookup(sb, CHALLENGE);
    assertStatus(res, "C");
    for (const k of ["threeDsServerTransId", "acsTransId", "dsTransId", "acsReferenceNumber", "acsSignedContent", "version"]) {
      assert.ok(lookup[k], `${k}: ${res.text}`);
    }
    assert.equal(lookup.sdkTransId?.toLowerCase(), tx.sdkTransID.toLowerCase());
    assert.deepEqual([lookup.cardScheme, lookup.cardBin], ["VISA", "400000"]);
    for (const k of ["challengeHtml", "hostedChallengeUrl"]) assert.equal(lookup[k], undefined, k);
    const header = decodeProtectedHeader(lookup.acsSignedContent);
    assert.equal(header.alg, "ES256");
    const { rootCertificates } = await schemeDirectoryServer(CHALLENGE);
    const { payload, chain } = await verifyAcsSignedContent(lookup.acsSignedContent, { rootCertificates });
    assert.ok(chain.length >= 1);
    assert.match(payload.acsURL, /^https?:\/\//);
    assert.deepEqual([payload.acsEphemPubKey?.kty, payload.acsEphemPubKey?.crv], ["EC", "P-256"]);
    const sent = tx.authenticationRequestParameters().sdkEphemPubKey;
    for (const k of ["kty", "crv", "x", "y"]) assert.equal(payload.sdkEphemPubKey?.[k], sent[k], `the echoed sdkEphemPubKey's ${k}`);
    assert.equal((await sb.enquiry(lookup.threeDsServerTransId)).transactionStatus, "C");
  });

  test("sdkEphemPubKey as a text holding the JWK's JSON is taken", async () => {
    const sb = new Sandbox("epk-text");
    const { tx, res } = await appLookup(sb, CHALLENGE, { bodyFrom: (p) => ({ sdkEphemPubKey: JSON.stringify(p.sdkEphemPubKey) }) });
    assertStatus(res, "C");
    const ch = await tx.doChallenge(challengeParameters(res.json));
    await ch.start();
    assertFinal(await ch.enter("1234"), "Y");
  });

  test("on 2.1.0 the challenge runs in 2.1.0", async () => {
    const sb = new Sandbox("v210");
    const { ch, lookup, id } = await startChallenge(sb, CHALLENGE, { messageVersion: "2.1.0" });
    assert.equal(lookup.version, "2.1.0");
    assert.equal((await ch.start()).messageVersion, "2.1.0");
    assertFinal(await ch.enter("1234"), "Y");
    await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
  });
});

describe("sdkEncData", { concurrency: 8 }, () => {
  const cases = [
    { name: "to Stripe's RSA test server F055545342, chosen by its kid", ds: "F055545342" },
    { name: "to Stripe's EC test server F155545342, Android's alg dir", ds: "F155545342", ecVariant: "dir" },
    { name: "to Stripe's EC test server F155545342, iOS's ECDH-ES", ds: "F155545342", ecVariant: "ECDH-ES" },
    { name: "to the card scheme's server without a kid", kid: false },
  ];
  for (const c of cases) {
    test(`${c.name}: decrypted, the challenge starts`, async () => {
      const sb = new Sandbox(`encdata-${c.ds ?? "scheme"}-${c.ecVariant ?? "rsa"}`);
      const { res } = await appLookup(sb, CHALLENGE, c);
      assertStatus(res, "C");
    });
  }

  test("encrypted to another server's key without its kid: 400, EMV 302, component D, naming sdkEncData", async () => {
    const sb = new Sandbox("encdata-wrong-key");
    const { res } = await appLookup(sb, CHALLENGE, { ds: "F055545342", kid: false });
    assertRefused(res, { emvCode: "302", component: "D", field: "sdkEncData" });
  });
});

describe("the device information", { concurrency: 8 }, () => {
  test(`${ANDROID_ONLY}: a challenge on Android, frictionless Y on iOS`, async () => {
    const sb = new Sandbox("platform");
    assertStatus((await appLookup(sb, ANDROID_ONLY, { device: { C001: "Android", C003: "Android" } })).res, "C");
    assertStatus((await appLookup(sb, ANDROID_ONLY, { device: { C001: "iOS", C002: "iPhone15,2", C003: "iOS", C004: "18.1" } })).res, "Y");
  });

  test("the locale th-TH: the screens in Thai", async () => {
    const sb = new Sandbox("locale-th");
    const { ch } = await startChallenge(sb, CHALLENGE, { device: { C005: "th-TH", C006: "Asia/Bangkok" } });
    const screen = await ch.start();
    assert.match(`${screen.challengeInfoHeader} ${screen.challengeInfoText}`, /[\u0E00-\u0E7F]/, `Thai texts: ${screen.challengeInfoHeader}`);
  });
});

describe("deviceRenderOptions", { concurrency: 8 }, () => {
  test("a select card to an SDK that draws only text but takes HTML: served as HTML (05)", async () => {
    const sb = new Sandbox("render-html");
    const { ch, lookup } = await startChallenge(sb, SELECT, { body: { deviceRenderOptions: { sdkInterface: "03", sdkUiType: ["01", "05"] } } });
    assert.equal(lookup.acsRenderingType?.acsInterface, "02", JSON.stringify(lookup.acsRenderingType));
    const screen = await ch.start();
    assert.equal(screen.acsUiType, "05");
    assert.ok(screen.acsHTML);
  });

  test("a select card to a native-only SDK that draws only text: N, reason 03", async () => {
    const sb = new Sandbox("render-none");
    const { res } = await appLookup(sb, SELECT, { body: { deviceRenderOptions: { sdkInterface: "01", sdkUiType: ["01"] } } });
    assertStatus(res, "N");
    assert.equal(res.json.statusReason, "03", res.text);
  });
});

describe("refused app lookups", { concurrency: 8 }, () => {
  test("deviceChannel 2 on the app path: CH01", async () => {
    const sb = new Sandbox("channel-2");
    const { res } = await appLookup(sb, CHALLENGE, { body: { deviceChannel: 2 } });
    assertRefused(res, { errorCode: "CH01" });
  });

  test("every problem at once: sdkAppId and sdkReferenceNumber missing, sdkMaxTimeout 04", async () => {
    const sb = new Sandbox("problems");
    const { res } = await appLookup(sb, CHALLENGE, { body: { sdkAppId: undefined, sdkReferenceNumber: undefined, sdkMaxTimeout: "04" } });
    assert.equal(res.status, 400, res.text);
    const fields = (res.json.problems ?? []).map((p) => p.field).join(",").split(",");
    for (const f of ["sdkAppId", "sdkReferenceNumber", "sdkMaxTimeout"]) assert.ok(fields.includes(f), `problems name ${f}: ${res.text}`);
  });

  test("the EMV spelling sdkAppID is named in the hint", async () => {
    const sb = new Sandbox("emv-spelling");
    const { res } = await appLookup(sb, CHALLENGE, { bodyFrom: (p) => ({ sdkAppId: undefined, sdkAppID: p.sdkAppID }) });
    assert.equal(res.status, 400, res.text);
    const problem = (res.json.problems ?? []).find((p) => p.field.split(",").includes("sdkAppId"));
    assert.ok(problem, `a problem naming sdkAppId: ${res.text}`);
    assert.match(problem.reason, /sdkAppID/, "the hint names the EMV spelling sent");
  });

  test("an sdkEphemPubKey that is not on P-256: refused, naming it", async () => {
    const sb = new Sandbox("bad-epk");
    const { res } = await appLookup(sb, CHALLENGE, { bodyFrom: (p) => ({ sdkEphemPubKey: { ...p.sdkEphemPubKey, y: p.sdkEphemPubKey.x } }) });
    assertRefused(res, { field: "sdkEphemPubKey" });
  });
});
