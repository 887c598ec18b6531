// The sandbox around the SDK, for the tests: its URL (THREEDS_SANDBOX_URL,
// which `threeds-sandbox exec` sets), a fresh bearer token per test, the
// app lookup as a merchant's backend sends it, the enquiry, the automation
// API (?wait=final, the token's clock) and the headless challenge.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { deviceInformation } from "../device.mjs";
import { counterIV, ivSize } from "../exchange.mjs";
import { decodeAcsHTML, formData, parseForm } from "../html.mjs";
import { createTransaction, JOSE_TYPE } from "../sdk.mjs";

/** The sandbox's base URL; a test without it fails, never skips. */
export function baseURL() {
  const url = process.env.THREEDS_SANDBOX_URL;
  if (!url) throw new Error("THREEDS_SANDBOX_URL is not set: run the tests under `threeds-sandbox exec -- npm test`");
  return url.replace(/\/+$/, "");
}

/** A bearer token of the test's own: its transactions and clock are no other test's. */
export const newToken = (label = "t") => `sdk-${label.replace(/[^a-z0-9]+/gi, "-").slice(0, 40)}-${randomUUID().slice(0, 8)}`;

/** Every request's bound, so that a sandbox that does not answer fails a test rather than hangs it. */
const REQUEST_TIMEOUT_MS = 45_000;

/** The sandbox as one token sees it. */
export class Sandbox {
  constructor(label) {
    this.base = baseURL();
    this.token = newToken(label);
  }

  async call(method, path, body, { headers = {}, auth = true } = {}) {
    const init = { method, headers: { ...headers }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
    if (auth) init.headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) {
      init.headers["Content-Type"] ??= "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await fetch(`${this.base}${path}`, init).catch(unreachable(`${this.base}${path}`));
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** POST /authentication/app; answers {status, json}. */
  lookupApp(body) {
    return this.call("POST", "/authentication/app", body);
  }

  /** The enquiry's answer, which must be 200. */
  async enquiry(threeDsServerTransId) {
    const r = await this.call("POST", "/enquiry/", { threeDsServerTransId });
    assert.equal(r.status, 200, `enquiry: ${r.text}`);
    return r.json;
  }

  /** GET /admin/transactions/{id}, with ?wait=final when `wait`. */
  async transaction(id, { wait = false } = {}) {
    const r = await this.call("GET", `/admin/transactions/${id}${wait ? "?wait=final&timeout=30s" : ""}`);
    assert.equal(r.status, 200, `transaction: ${r.text}`);
    return r.json;
  }

  /** POST /admin/clock: moves the token's clock forward. */
  async advanceClock(advance) {
    const r = await this.call("POST", "/admin/clock", { advance });
    assert.equal(r.status, 200, `clock: ${r.text}`);
    return r.json;
  }

  /** POST /challenge/{id}: the headless challenge. */
  complete(id, action) {
    return this.call("POST", `/challenge/${id}`, action);
  }

  /**
   * The banking app's answer to an out-of-band challenge: its page at the
   * CRes's oobAppURL, read, and its form posted with the button of
   * data-action `action` ("approve" or "decline") pressed.
   */
  async bankingApp(oobAppURL, action) {
    const page = await fetch(oobAppURL, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(unreachable(oobAppURL));
    const html = await page.text();
    assert.equal(page.status, 200, `the banking app's page ${oobAppURL}: ${html.slice(0, 200)}`);
    const form = parseForm(html);
    assert.ok(form.buttons.some((b) => b.action === action || b.value === action), `the banking app's page has no ${action} button`);
    const target = new URL(form.action || oobAppURL, oobAppURL);
    const res = await fetch(target, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: formData(form, { action }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).catch(unreachable(target.href));
    const text = await res.text();
    assert.equal(res.status, 200, `the banking app's ${action}: ${text.slice(0, 200)}`);
  }
}

/** A fetch error as a failure that names the sandbox that did not answer. */
const unreachable = (url) => (err) => {
  throw new Error(`the sandbox does not answer at ${url} (${err.cause?.code ?? err.name}: ${err.cause?.message ?? err.message}); `
    + "run the tests under `threeds-sandbox exec -- npm test`, or point THREEDS_SANDBOX_URL at a running sandbox", { cause: err });
};

let servers;
/** GET /sdk/directory-servers, without a token; read once per process. */
export async function directoryServers() {
  servers ??= (async () => {
    const url = `${baseURL()}/sdk/directory-servers`;
    const res = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(unreachable(url));
    assert.equal(res.status, 200);
    return (await res.json()).directoryServers;
  })();
  return servers;
}

/** The directory server of an id. */
export async function directoryServer(id) {
  const ds = (await directoryServers()).find((d) => d.directoryServerId === id);
  assert.ok(ds, `no directory server ${id}`);
  return ds;
}

/** A card's scheme by its BIN, as docs/test-cards.md has them. */
export function schemeOf(card) {
  if (/^(34|37)/.test(card)) return "AMEX";
  if (/^(6011|65|64[4-9])/.test(card)) return "DISCOVER";
  if (/^35/.test(card)) return "JCB";
  if (/^62/.test(card)) return "UPI";
  if (/^(5[1-5]|2[2-7])/.test(card)) return "MASTERCARD";
  if (/^4/.test(card)) return "VISA";
  return "UNKNOWN";
}

/** The directory server of a card's scheme. */
export async function schemeDirectoryServer(card) {
  const scheme = schemeOf(card);
  const ds = (await directoryServers()).find((d) => d.scheme === scheme);
  assert.ok(ds, `no directory server for ${scheme}`);
  return ds;
}

/** ECI by scheme and status (docs/test-cards.md). */
export function eciOf(scheme, status) {
  const table = scheme === "MASTERCARD" ? { Y: "02", A: "01", N: "00", U: "00", R: "00" } : { Y: "05", A: "06", N: "07", U: "07", R: "07" };
  return table[status];
}

/**
 * The app lookup's body: the browser lookup's fields without browserInfo,
 * notificationUrl, challengeWindowSize, ddcId and threeDSCompInd, with
 * deviceChannel 1 and the SDK's parameters under the sandbox's names.
 */
export function appLookupBody(card, params, extra = {}) {
  return {
    externalReferenceId: `APP-${randomUUID().slice(0, 8)}`,
    threeDsRequestorAuthInd: "01",
    acquirerCode: "3DS Requestor",
    acquirerBin: "412345",
    merchantCode: "MERCHANT-0042",
    deviceChannel: 1,
    messageCategory: "01",
    messageVersion: params.messageVersion,
    card: { cardNumber: card, expiryDate: "2812", cardholderName: "Jane A. Doe" },
    merchantName: "Example Shop",
    purchase: { date: "2026-06-11 14:03:27", amount: 129.99, currencyCode: "EUR" },
    sdkAppId: params.sdkAppID,
    sdkTransId: params.sdkTransID,
    sdkReferenceNumber: params.sdkReferenceNumber,
    sdkEphemPubKey: params.sdkEphemPubKey,
    sdkEncData: params.sdkEncData,
    sdkMaxTimeout: "05",
    deviceRenderOptions: { sdkInterface: "03", sdkUiType: ["01", "02", "03", "04", "05"] },
    ...extra,
  };
}

/**
 * A transaction of the SDK and its app lookup. Options: ds (the directory
 * server id sdkEncData is encrypted to; the card scheme's by default),
 * device (entries of the device information), messageVersion, liveMode,
 * ecVariant, kid, sdkReferenceNumber, body (fields to change in the lookup
 * body), bodyFrom (a function of the SDK's parameters answering more of
 * them).
 */
export async function appLookup(sb, card, {
  ds, device = {}, messageVersion, liveMode, ecVariant, kid, body = {}, bodyFrom = () => ({}), readTimeoutMs, sdkReferenceNumber,
} = {}) {
  const schemeDS = await schemeDirectoryServer(card);
  const tx = await createTransaction({
    directoryServer: ds ? await directoryServer(ds) : schemeDS,
    rootCertificates: schemeDS.rootCertificates,
    deviceInfo: deviceInformation(device),
    messageVersion, liveMode, ecVariant, kid, readTimeoutMs, sdkReferenceNumber,
  });
  const params = tx.authenticationRequestParameters();
  const res = await sb.lookupApp(appLookupBody(card, params, { ...body, ...bodyFrom(params) }));
  return { tx, res, lookup: res.json };
}

/** What the app hands its SDK from a status C lookup. */
export const challengeParameters = (lookup) => ({
  threeDSServerTransID: lookup.threeDsServerTransId,
  acsTransID: lookup.acsTransId,
  acsRefNumber: lookup.acsReferenceNumber,
  acsSignedContent: lookup.acsSignedContent,
  messageVersion: lookup.version,
});

/** The lookup of a challenge card, checked, and the SDK's challenge ready to start. */
export async function startChallenge(sb, card, { enc = "A128CBC-HS256", ivs = "random", ...options } = {}) {
  const { tx, res, lookup } = await appLookup(sb, card, options);
  assert.equal(res.status, 200, `lookup: ${res.text}`);
  assert.equal(lookup.status, "C", `lookup: ${res.text}`);
  const ch = await tx.doChallenge(challengeParameters(lookup), { enc, ivs });
  return { tx, lookup, ch, id: lookup.threeDsServerTransId };
}

/**
 * The wire of every exchange so far, as the docs state it: status 200,
 * Content-Type application/jose; charset=UTF-8, header alg dir with the
 * CReq's enc and kid the acsTransID, and the ACS's IV the counter in the
 * last byte, the other bytes 0xFF.
 */
export function assertWire(ch) {
  for (const [n, e] of ch.log.entries()) {
    if (!e.cres) continue;
    assert.equal(e.reply.status, 200);
    assert.equal(e.reply.contentType.toLowerCase().replace(/\s/g, ""), JOSE_TYPE.toLowerCase().replace(/\s/g, ""), `CRes ${n}: Content-Type`);
    assert.deepEqual(e.header, { alg: "dir", enc: ch.enc, kid: ch.ids.acsTransID }, `CRes ${n}: the JWE header`);
    assert.equal(e.reply.text.split(".")[1], "", `CRes ${n}: the encrypted key part is empty`);
    assert.ok(!/=/.test(e.reply.text), `CRes ${n}: base64url without padding`);
    assert.equal(e.iv.length, ivSize(ch.enc));
    assert.deepEqual(e.iv, counterIV(ch.enc, true, Number(e.cres.acsCounterAtoS)), `CRes ${n}: the ACS's IV`);
  }
}

/** The keys of a final CRes, as the docs list them. */
export const FINAL_CRES_KEYS = ["acsCounterAtoS", "acsTransID", "challengeCompletionInd", "messageType", "messageVersion", "sdkTransID", "threeDSServerTransID", "transStatus"];

/** A final CRes with the docs' keys only, and its transStatus. */
export function assertFinal(cres, transStatus) {
  assert.equal(cres.challengeCompletionInd, "Y");
  assert.deepEqual(Object.keys(cres).sort(), FINAL_CRES_KEYS, "the final CRes's keys");
  assert.equal(cres.transStatus, transStatus);
}

/**
 * A code the catalogue's otp cards take as a wrong answer: their scenarios
 * name 1234 (passes) and 0000 (fails at once); any other code is wrong.
 */
export const WRONG_CODE = "9999";

/** The texts of a native screen (01-04), and those of its UI type. */
const SCREEN_TEXTS = ["challengeInfoHeader", "challengeInfoText", "whyInfoLabel", "whyInfoText", "expandInfoLabel", "expandInfoText"];
const TEXTS_BY_UI_TYPE = {
  "01": ["challengeInfoLabel", "submitAuthenticationLabel"],
  "02": ["challengeInfoLabel", "submitAuthenticationLabel"],
  "03": ["challengeInfoLabel", "submitAuthenticationLabel"],
  "04": ["oobContinueLabel"],
};

const imagesSeen = new Set();
async function assertPNG(url) {
  if (imagesSeen.has(url)) return;
  const res = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(unreachable(url));
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, `image ${url}`);
  assert.ok(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${url} is a PNG`);
  imagesSeen.add(url);
}

/**
 * An interim CRes as the docs promise it: challengeCompletionInd N, the UI
 * type; on a native screen its texts, both images (PNGs served by the
 * sandbox), the sandbox's hint, and after a wrong answer the indicator and
 * the attempts left; on an HTML screen acsHTML alone, the page saying the
 * attempts left.
 */
export async function assertScreen(cres, { uiType, attemptsLeft }) {
  assert.equal(cres.challengeCompletionInd, "N");
  assert.equal(cres.acsUiType, uiType);
  if (uiType === "05") {
    const allowed = [...FINAL_CRES_KEYS.filter((k) => k !== "transStatus"), "acsUiType", "acsHTML"];
    const extra = Object.keys(cres).filter((k) => !allowed.includes(k));
    assert.deepEqual(extra, [], "an HTML CRes has acsHTML alone");
    const page = decodeAcsHTML(cres.acsHTML);
    if (attemptsLeft !== undefined) assert.match(page, new RegExp(`\\b${attemptsLeft}\\b`), "the page says how many attempts are left");
    return;
  }
  for (const k of [...SCREEN_TEXTS, ...TEXTS_BY_UI_TYPE[uiType]]) {
    assert.ok(typeof cres[k] === "string" && cres[k] !== "", `${k} on a screen of UI type ${uiType}`);
  }
  for (const k of ["issuerImage", "psImage"]) {
    for (const size of ["medium", "high", "extraHigh"]) assert.match(cres[k]?.[size] ?? "", /^https?:\/\//, `${k}.${size}`);
    await assertPNG(cres[k].medium);
  }
  assert.ok(typeof cres.challengeAddInfo === "string" && cres.challengeAddInfo !== "", "challengeAddInfo: the sandbox's hint");
  if (attemptsLeft !== undefined) {
    assert.equal(cres.challengeInfoTextIndicator, "Y", "after a wrong answer");
    assert.match(cres.challengeInfoText, new RegExp(`\\b${attemptsLeft}\\b`), "challengeInfoText says how many attempts are left");
  }
}

/** The transaction once final (?wait=final), then its enquiry, checked against `want`. */
export async function assertOutcome(sb, id, want) {
  const tx = await sb.transaction(id, { wait: true });
  assert.equal(tx.final, true, `the transaction is final: ${JSON.stringify(tx).slice(0, 300)}`);
  const e = await sb.enquiry(id);
  const scheme = e.cardScheme;
  assert.equal(e.transactionStatus, want.status, `transactionStatus: ${JSON.stringify(e)}`);
  assert.equal(e.eci, eciOf(scheme, want.status), `eci of ${scheme} ${want.status}`);
  if (want.status === "Y" || want.status === "A") assert.equal(e.authenticationValue?.length, 28);
  else assert.equal(e.authenticationValue, undefined);
  if ("reason" in want) assert.equal(e.statusReason, want.reason, "statusReason");
  assert.equal(e.challengeCancel, want.cancel, "challengeCancel");
  if (want.authType !== undefined) {
    if (want.authTypeOptional && e.authenticationType === undefined) {
      // a challenge that never showed a screen may have none
    } else {
      assert.equal(e.authenticationType, want.authType, "authenticationType");
    }
  }
  if (want.interactions !== undefined) {
    if (want.interactions === 0) assert.ok([undefined, "00"].includes(e.interactionCounter), `interactionCounter ${e.interactionCounter}, want none or 00`);
    else assert.equal(e.interactionCounter, String(want.interactions).padStart(2, "0"), "interactionCounter");
  }
  if ("whiteList" in want) {
    assert.equal(e.whiteListStatus, want.whiteList, "whiteListStatus");
    if (want.whiteList) assert.equal(e.whiteListStatusSource, "03", "whiteListStatusSource");
  }
  return e;
}

/** Expects an Erro from the ACS for `promise` (a Challenge call); answers the Erro. */
export async function expectAcsErro(promise, code) {
  const err = await promise.then((v) => assert.fail(`want an Erro ${code}, got ${JSON.stringify(v)}`), (e) => e);
  assert.equal(err.kind, "acsErro", `want an Erro ${code} from the ACS, got ${err.stack}`);
  assert.equal(err.acsErro.errorCode, code, JSON.stringify(err.acsErro));
  return err.acsErro;
}

/**
 * Posts a CReq outside the SDK's state: a body (sealed with the challenge's
 * key, its counter from sdkCounterStoA unless `counter`), or a text sent as
 * it is. Answers the compact sent and the ACS's reply.
 */
export async function postCReq(ch, body, { contentType = JOSE_TYPE, ...sealOptions } = {}) {
  const compact = typeof body === "string" ? body
    : await ch.seal(body, { counter: Number(body.sdkCounterStoA) || 0, ...sealOptions });
  return { compact, reply: await ch.post(compact, contentType) };
}

/**
 * An Erro from the ACS as the docs show it: status 200, plain JSON,
 * errorComponent A, errorMessageType CReq, the code, and the challenge's ids
 * unless `ids` is false; `detail` the errorDetail when given.
 */
export function assertErro(reply, code, ch, { detail, ids = true } = {}) {
  assert.equal(reply.status, 200, `an Erro is answered with 200: ${reply.text}`);
  assert.match(reply.contentType, /^application\/json;\s*charset=utf-8$/i, "an Erro is plain JSON");
  const m = JSON.parse(reply.text);
  assert.equal(m.messageType, "Erro", reply.text);
  assert.equal(m.errorCode, code, reply.text);
  assert.equal(m.errorComponent, "A", reply.text);
  assert.equal(m.errorMessageType, "CReq", reply.text);
  assert.ok(m.errorDescription, "errorDescription");
  assert.ok(m.messageVersion, "messageVersion");
  if (detail !== undefined) assert.equal(m.errorDetail, detail, reply.text);
  if (ids) {
    for (const k of ["threeDSServerTransID", "acsTransID", "sdkTransID"]) {
      assert.equal(String(m[k]).toLowerCase(), String(ch.ids[k]).toLowerCase(), `the Erro's ${k}`);
    }
  }
  return m;
}
