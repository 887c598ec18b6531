// The checks an SDK makes on every CRes before it shows a screen
// (docs/app-channel.md, "The CReq/CRes exchange" and "Fault cards"): the
// ids, the version, the counter, the fields its acsUiType needs, the format
// of what is there, and the keys of the final CRes. A failed check is a
// ProtocolError carrying the EMV error code the SDK sends in its Erro.

/** EMV descriptions of the error codes an SDK sends. */
export const EMV_DESCRIPTIONS = Object.freeze({
  101: "Message Received Invalid",
  102: "Message Version Number Not Supported",
  201: "Required Data Element Missing",
  203: "Format of One or More Data Elements is Invalid according to the Specification",
  301: "Transaction ID Not Recognized",
  302: "Data Decryption Failure",
  402: "Transaction Timed Out",
});

/** A CRes the SDK refuses: errorCode and errorDetail of the Erro it sends. */
export class ProtocolError extends Error {
  constructor(errorCode, errorDetail, message) {
    super(`EMV ${errorCode} (${EMV_DESCRIPTIONS[errorCode] ?? "error"}) on ${errorDetail}: ${message}`);
    this.name = "ProtocolError";
    this.errorCode = errorCode;
    this.errorDetail = errorDetail;
    this.errorDescription = EMV_DESCRIPTIONS[errorCode] ?? message;
  }
}

/** The ACS UI types: 01 text, 02 single select, 03 multi select, 04 out of band, 05 HTML. */
export const UI_TYPES = Object.freeze(["01", "02", "03", "04", "05"]);

/** What an SDK needs to draw each UI type's screen (Android's and iOS's needs together). */
export const REQUIRED_BY_UI_TYPE = Object.freeze({
  "01": ["challengeInfoHeader", "challengeInfoLabel", "challengeInfoText", "submitAuthenticationLabel"],
  "02": ["challengeInfoHeader", "challengeInfoLabel", "challengeInfoText", "submitAuthenticationLabel", "challengeSelectInfo"],
  "03": ["challengeInfoHeader", "challengeInfoLabel", "challengeInfoText", "submitAuthenticationLabel", "challengeSelectInfo"],
  "04": ["challengeInfoHeader", "challengeInfoText", "oobContinueLabel"],
  "05": ["acsHTML"],
});

/** The keys a final CRes may have: those Android's SDK accepts. */
export const FINAL_KEYS = Object.freeze([
  "threeDSServerTransID", "acsCounterAtoS", "acsTransID", "challengeCompletionInd",
  "messageExtension", "messageType", "messageVersion", "sdkTransID", "transStatus",
]);

/** Text fields that, when present, must be non-empty strings. */
const TEXTS = [
  "challengeInfoHeader", "challengeInfoLabel", "challengeInfoText", "submitAuthenticationLabel",
  "whyInfoLabel", "whyInfoText", "expandInfoLabel", "expandInfoText", "challengeAddInfo",
  "resendInformationLabel", "oobContinueLabel", "oobAppURL", "oobAppLabel", "whitelistingInfoText", "acsHTML",
];

const IDS = ["threeDSServerTransID", "acsTransID", "sdkTransID"];
const missing = (v) => v === undefined || v === null || v === "";

function checkImage(cres, name) {
  const img = cres[name];
  if (img === undefined) return;
  const urls = img && typeof img === "object" && !Array.isArray(img)
    ? ["medium", "high", "extraHigh"].filter((k) => img[k] !== undefined) : [];
  if (urls.length === 0 || urls.some((k) => typeof img[k] !== "string" || !/^https?:\/\//.test(img[k]))) {
    throw new ProtocolError("203", name, "is not an object of medium, high and extraHigh URLs");
  }
}

function checkSelectInfo(info) {
  const ok = Array.isArray(info) && info.length > 0 && info.every((o) =>
    o && typeof o === "object" && !Array.isArray(o) && Object.keys(o).length === 1 && typeof Object.values(o)[0] === "string");
  if (!ok) throw new ProtocolError("203", "challengeSelectInfo", "is not an array of one-key objects");
}

function checkInterim(cres) {
  if (missing(cres.acsUiType)) throw new ProtocolError("201", "acsUiType", "an interim CRes without acsUiType");
  if (!UI_TYPES.includes(cres.acsUiType)) throw new ProtocolError("203", "acsUiType", `acsUiType ${JSON.stringify(cres.acsUiType)}`);
  const absent = REQUIRED_BY_UI_TYPE[cres.acsUiType].filter((k) => cres[k] === undefined || cres[k] === null);
  if (absent.length > 0) {
    throw new ProtocolError("201", absent.join(","), `acsUiType ${cres.acsUiType} needs ${absent.join(", ")}`);
  }
  for (const k of TEXTS) {
    if (cres[k] !== undefined && (typeof cres[k] !== "string" || cres[k] === "")) {
      throw new ProtocolError("203", k, `${JSON.stringify(cres[k])} is not a non-empty string`);
    }
  }
  if (cres.whitelistingInfoText !== undefined && cres.whitelistingInfoText.length > 64) {
    throw new ProtocolError("203", "whitelistingInfoText", "is longer than 64 characters");
  }
  if (cres.challengeInfoTextIndicator !== undefined && !["Y", "N"].includes(cres.challengeInfoTextIndicator)) {
    throw new ProtocolError("203", "challengeInfoTextIndicator", "is not Y or N");
  }
  if (cres.acsUiType === "02" || cres.acsUiType === "03") checkSelectInfo(cres.challengeSelectInfo);
  if (cres.acsUiType === "05" && !/^[A-Za-z0-9_-]+={0,2}$/.test(cres.acsHTML)) {
    throw new ProtocolError("203", "acsHTML", "is not base64url");
  }
  checkImage(cres, "issuerImage");
  checkImage(cres, "psImage");
}

/**
 * Checks one decrypted CRes against what the SDK expects: `want` holds the
 * three ids, messageVersion and counter (the number of CRes received before
 * it, which is also the counter of the CReq it answers). Throws a
 * ProtocolError; returns the CRes.
 */
export function checkCRes(cres, want) {
  if (cres === null || typeof cres !== "object" || Array.isArray(cres)) {
    throw new ProtocolError("101", "CRes", "the plaintext is not a JSON object");
  }
  if (missing(cres.messageType)) throw new ProtocolError("201", "messageType", "no messageType");
  if (cres.messageType !== "CRes") throw new ProtocolError("101", "messageType", `messageType ${cres.messageType}`);
  if (missing(cres.messageVersion)) throw new ProtocolError("201", "messageVersion", "no messageVersion");
  if (cres.messageVersion !== want.messageVersion) {
    throw new ProtocolError("102", "messageVersion", `${cres.messageVersion}, the lookup's is ${want.messageVersion}`);
  }
  for (const id of IDS) {
    if (missing(cres[id])) throw new ProtocolError("201", id, `no ${id}`);
    if (String(cres[id]).toLowerCase() !== String(want[id]).toLowerCase()) {
      throw new ProtocolError("301", id, `${cres[id]}, want ${want[id]}`);
    }
  }
  if (missing(cres.acsCounterAtoS)) throw new ProtocolError("201", "acsCounterAtoS", "no acsCounterAtoS");
  if (typeof cres.acsCounterAtoS !== "string" || !/^[0-9]{3}$/.test(cres.acsCounterAtoS)) {
    throw new ProtocolError("203", "acsCounterAtoS", `${JSON.stringify(cres.acsCounterAtoS)} is not three digits`);
  }
  if (Number(cres.acsCounterAtoS) !== want.counter) {
    throw new ProtocolError("302", "acsCounterAtoS", `${cres.acsCounterAtoS}, want ${String(want.counter).padStart(3, "0")}`);
  }
  if (missing(cres.challengeCompletionInd)) throw new ProtocolError("201", "challengeCompletionInd", "no challengeCompletionInd");
  if (cres.challengeCompletionInd === "Y") {
    if (missing(cres.transStatus)) throw new ProtocolError("201", "transStatus", "a final CRes without transStatus");
    if (!["Y", "N"].includes(cres.transStatus)) throw new ProtocolError("203", "transStatus", `transStatus ${cres.transStatus}`);
    const extra = Object.keys(cres).filter((k) => !FINAL_KEYS.includes(k));
    if (extra.length > 0) throw new ProtocolError("203", extra.join(","), "keys a final CRes may not have");
    return cres;
  }
  if (cres.challengeCompletionInd !== "N") {
    throw new ProtocolError("203", "challengeCompletionInd", `challengeCompletionInd ${cres.challengeCompletionInd}`);
  }
  checkInterim(cres);
  return cres;
}
