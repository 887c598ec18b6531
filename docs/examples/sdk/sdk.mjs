// A small 3DS SDK for the sandbox's app channel, written from
// docs/app-channel.md: what a mobile app's certified SDK does, without the
// screens. It makes the authentication parameters for the app lookup,
// checks acsSignedContent, derives the exchange key, sends encrypted CReqs
// with their counters, checks every CRes, and posts an Erro to the ACS when
// a CRes is wrong.
import { randomUUID } from "node:crypto";
import { deviceInformation, sdkEncData } from "./device.mjs";
import { counterIV, ENCS, ephemeralKeyPair, exchangeKey, jweParts, open, seal } from "./exchange.mjs";
import { checkCRes, EMV_DESCRIPTIONS, ProtocolError } from "./cres.mjs";
import { SignatureError, verifyAcsSignedContent } from "./signature.mjs";

export { SignatureError } from "./signature.mjs";
export { ProtocolError } from "./cres.mjs";

/** The reference number iOS's SDK sends; the exchange key is derived with it. */
export const SDK_REFERENCE_NUMBER = "3DS_LOA_SDK_STIN_020200_00961";

/** The SDKs' read timeout: a CRes later than this ends the challenge. */
export const READ_TIMEOUT_MS = 10_000;

export const JOSE_TYPE = "application/jose; charset=UTF-8";
export const JSON_TYPE = "application/json; charset=UTF-8";

/**
 * Why a challenge ended without a final CRes. kind: "protocol" (the SDK
 * refused a CRes and sent `erroSent`), "acsErro" (the ACS answered an Erro,
 * `acsErro`), "timeout" (no answer within the read timeout), "http" (an
 * answer that is not 200).
 */
export class ChallengeError extends Error {
  constructor(kind, message, extra = {}) {
    super(message);
    this.name = "ChallengeError";
    this.kind = kind;
    Object.assign(this, extra);
  }
}

/** Three digits of a counter, as the messages carry them. */
export const counterText = (n) => String(n).padStart(3, "0");

/**
 * The SDK's state for one transaction. Options: directoryServer (an entry of
 * GET /sdk/directory-servers, the key sdkEncData is encrypted to),
 * rootCertificates (what the ACS's signature must lead to; by default the
 * directory server's), messageVersion, deviceInfo, liveMode (false: the x5c
 * chain need only validate against itself), ecVariant and kid for
 * sdkEncData, readTimeoutMs.
 */
export async function createTransaction({
  directoryServer,
  rootCertificates = directoryServer.rootCertificates,
  messageVersion = "2.2.0",
  deviceInfo = deviceInformation(),
  sdkReferenceNumber = SDK_REFERENCE_NUMBER,
  sdkAppID = randomUUID(),
  liveMode = true,
  ecVariant = "dir",
  kid = true,
  readTimeoutMs = READ_TIMEOUT_MS,
} = {}) {
  const ephemeral = await ephemeralKeyPair();
  const encData = await sdkEncData(directoryServer, deviceInfo, { ecVariant, kid });
  return new Transaction({
    sdkAppID, sdkTransID: randomUUID(), sdkReferenceNumber, messageVersion, ephemeral,
    sdkEncData: encData, rootCertificates, liveMode, readTimeoutMs, deviceInfo,
  });
}

/** One transaction of the SDK: its authentication parameters and its challenge. */
export class Transaction {
  constructor(fields) {
    Object.assign(this, fields);
  }

  /** What the app sends its backend for the app lookup (the EMV names). */
  authenticationRequestParameters() {
    return {
      sdkAppID: this.sdkAppID,
      sdkTransID: this.sdkTransID,
      sdkReferenceNumber: this.sdkReferenceNumber,
      sdkEphemPubKey: { ...this.ephemeral.publicJwk },
      sdkEncData: this.sdkEncData,
      messageVersion: this.messageVersion,
    };
  }

  /**
   * Checks acsSignedContent and derives the exchange key; throws a
   * SignatureError and starts nothing when the content is not to be
   * trusted. params: threeDSServerTransID, acsTransID, acsRefNumber,
   * acsSignedContent and messageVersion (the lookup's). options: enc,
   * ivs ("random", or "counter" for the EMV counter IVs).
   */
  async doChallenge(params, { enc = "A128CBC-HS256", ivs = "random", now } = {}) {
    if (!ENCS.includes(enc)) throw new Error(`enc ${enc} is not one of ${ENCS}`);
    for (const k of ["threeDSServerTransID", "acsTransID", "acsSignedContent"]) {
      if (!params[k]) throw new Error(`doChallenge: no ${k}`);
    }
    const { payload } = await verifyAcsSignedContent(params.acsSignedContent, {
      rootCertificates: this.rootCertificates, liveMode: this.liveMode, now,
    });
    const { acsURL, acsEphemPubKey } = payload;
    // The lookup takes the key as a JSON text too; the echo may be either.
    let sdkEphemPubKey = payload.sdkEphemPubKey;
    if (typeof sdkEphemPubKey === "string") {
      try {
        sdkEphemPubKey = JSON.parse(sdkEphemPubKey);
      } catch {
        throw new SignatureError("acsSignedContent's sdkEphemPubKey is a text that is not JSON");
      }
    }
    let url;
    try {
      url = new URL(acsURL);
    } catch {
      throw new SignatureError(`acsSignedContent's acsURL ${JSON.stringify(acsURL)} is not a URL`);
    }
    if (!["http:", "https:"].includes(url.protocol)) throw new SignatureError(`acsURL ${acsURL} is not http(s)`);
    const mine = this.ephemeral.publicJwk;
    if (!sdkEphemPubKey || ["kty", "crv", "x", "y"].some((k) => sdkEphemPubKey[k] !== mine[k])) {
      throw new SignatureError("acsSignedContent's sdkEphemPubKey is not the key this SDK sent");
    }
    let key;
    try {
      key = await exchangeKey(this.ephemeral.privateKey, acsEphemPubKey, this.sdkReferenceNumber);
    } catch (err) {
      throw new SignatureError(`acsEphemPubKey: ${err.message}`);
    }
    return new Challenge({
      acsURL: url.href,
      key,
      enc,
      ivs,
      readTimeoutMs: this.readTimeoutMs,
      ids: {
        threeDSServerTransID: params.threeDSServerTransID,
        acsTransID: params.acsTransID,
        sdkTransID: this.sdkTransID,
      },
      messageVersion: params.messageVersion ?? this.messageVersion,
    });
  }
}

/**
 * The CReq/CRes exchange of one challenge. `log` keeps every exchange
 * (the CReq, the compact sent, the answer as received, the CRes decrypted
 * with its JWE header and IV) for the tests to read.
 */
export class Challenge {
  constructor(fields) {
    Object.assign(this, fields);
    this.sdkCounter = 0;
    this.acsCounter = 0;
    this.ended = false;
    this.log = [];
  }

  /** The CReq body of the next counter (or `counter`) with the screen's fields. */
  creq(fields = {}, counter = this.sdkCounter) {
    return {
      threeDSServerTransID: this.ids.threeDSServerTransID,
      acsTransID: this.ids.acsTransID,
      sdkTransID: this.ids.sdkTransID,
      messageType: "CReq",
      messageVersion: this.messageVersion,
      sdkCounterStoA: counterText(counter),
      ...fields,
    };
  }

  /** Encrypts a CReq body (any JSON value or text) as the SDK does. */
  seal(body, { counter = this.sdkCounter, enc = this.enc, kid = this.ids.acsTransID, iv } = {}) {
    const chosen = iv ?? (this.ivs === "counter" ? counterIV(enc, false, counter) : undefined);
    return seal({ key: this.key, enc, kid, iv: chosen, plaintext: body });
  }

  /** POSTs a body to acsURL within the read timeout; answers status, type and text. */
  async post(body, contentType, timeoutMs = this.readTimeoutMs) {
    const started = performance.now();
    try {
      const res = await fetch(this.acsURL, {
        method: "POST",
        headers: { "Content-Type": contentType },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, ms: performance.now() - started };
    } catch (err) {
      if (err.name === "TimeoutError" || err.name === "AbortError") {
        throw new ChallengeError("timeout", `no answer from the ACS within ${timeoutMs} ms`, { ms: performance.now() - started });
      }
      throw err;
    }
  }

  /** The first CReq: no entry; its CRes is the first screen. */
  start() {
    return this.send({});
  }

  /** Text entry (acsUiType 01, and the keys of 02 and 03). */
  enter(text) {
    return this.send({ challengeDataEntry: text });
  }

  /** The keys of the choices picked, comma-separated (02, 03). */
  select(keys) {
    return this.send({ challengeDataEntry: keys.join(",") });
  }

  resend() {
    return this.send({ resendChallenge: "Y" });
  }

  /** Continue on the out-of-band screen (04): Android sends true, others "Y". */
  oobContinue(value = true) {
    return this.send({ oobContinue: value });
  }

  /** The HTML form's data (05), url-encoded. */
  html(data) {
    return this.send({ challengeHTMLDataEntry: data });
  }

  noEntry() {
    return this.send({ challengeNoEntry: "Y" });
  }

  /** 01 the cardholder cancelled; 06, 07, 08 the SDK's own reasons. */
  cancel(code = "01") {
    return this.send({ challengeCancel: code });
  }

  /**
   * Sends the next CReq with the screen's fields and answers its CRes,
   * checked. A final CRes ends the challenge; so does any error, thrown as a
   * ChallengeError.
   */
  async send(fields) {
    if (this.ended) throw new Error("the challenge has ended");
    const counter = this.sdkCounter;
    const body = this.creq(fields, counter);
    const compact = await this.seal(body, { counter });
    const entry = { creq: body, compact };
    this.log.push(entry);
    this.sdkCounter++;
    try {
      entry.reply = await this.post(compact, JOSE_TYPE);
    } catch (err) {
      if (err instanceof ChallengeError && err.kind === "timeout") {
        await this.fail(new ProtocolError("402", "CRes", err.message), err);
      }
      throw err;
    }
    const cres = await this.read(entry.reply, counter, entry);
    this.acsCounter++;
    if (cres.challengeCompletionInd === "Y") this.ended = true;
    return cres;
  }

  /** Reads an answer to CReq `counter` as the SDK must. */
  async read(reply, counter, entry = {}) {
    if (reply.status !== 200) {
      this.ended = true;
      throw new ChallengeError("http", `the ACS answered HTTP ${reply.status}: ${reply.text.slice(0, 200)}`, { reply });
    }
    const parts = jweParts(reply.text.trim());
    if (/application\/json/i.test(reply.contentType) || !parts) {
      let message;
      try {
        message = JSON.parse(reply.text);
      } catch {
        message = undefined;
      }
      if (message?.messageType === "Erro") {
        this.ended = true;
        throw new ChallengeError("acsErro", `the ACS answered Erro ${message.errorCode}: ${message.errorDescription} (${message.errorDetail})`, { acsErro: message, reply });
      }
      await this.fail(new ProtocolError("101", "CRes", `the answer is not a JWE nor an Erro (${reply.contentType})`));
    }
    let opened;
    try {
      opened = await open({ key: this.key, compact: reply.text.trim(), fromACS: true });
    } catch (err) {
      await this.fail(new ProtocolError("302", "CRes", `the CRes does not decrypt: ${err.message}`));
    }
    entry.header = opened.header;
    entry.iv = opened.iv;
    if (opened.header.enc !== this.enc) {
      await this.fail(new ProtocolError("203", "enc", `the CRes is in ${opened.header.enc}, the CReq in ${this.enc}`));
    }
    let cres;
    try {
      cres = JSON.parse(opened.text);
    } catch {
      await this.fail(new ProtocolError("101", "CRes", "the plaintext is not JSON"));
    }
    entry.cres = cres;
    if (cres?.messageType === "Erro") {
      this.ended = true;
      throw new ChallengeError("acsErro", `the ACS answered Erro ${cres.errorCode}`, { acsErro: cres, reply });
    }
    try {
      return checkCRes(cres, { ...this.ids, messageVersion: this.messageVersion, counter });
    } catch (err) {
      if (err instanceof ProtocolError) await this.fail(err);
      throw err;
    }
  }

  /** The Erro message the SDK sends for a ProtocolError. */
  erro(problem) {
    return {
      ...this.ids,
      messageType: "Erro",
      messageVersion: this.messageVersion,
      errorCode: problem.errorCode,
      errorComponent: "C",
      errorDescription: problem.errorDescription ?? EMV_DESCRIPTIONS[problem.errorCode],
      errorDetail: problem.errorDetail,
      errorMessageType: "CRes",
    };
  }

  /** Posts the SDK's own Erro to acsURL in plain JSON; answers the ACS's reply. */
  async postErro(problem) {
    const message = this.erro(problem);
    const reply = await this.post(JSON.stringify(message), JSON_TYPE, this.readTimeoutMs + 5_000);
    return { message, reply };
  }

  /** Ends the challenge on a ProtocolError: the Erro to the ACS, then the throw. */
  async fail(problem, cause) {
    this.ended = true;
    let sent;
    try {
      sent = await this.postErro(problem);
    } catch (err) {
      sent = { message: this.erro(problem), failed: err };
    }
    throw new ChallengeError(cause?.kind ?? "protocol", problem.message, {
      errorCode: problem.errorCode,
      errorDetail: problem.errorDetail,
      erroSent: sent.message,
      erroReply: sent.reply,
      erroFailed: sent.failed,
      ms: cause?.ms,
    });
  }
}
