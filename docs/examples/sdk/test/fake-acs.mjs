// An ACS in the test process, for the unit tests of the SDK's own checks
// without a sandbox: it signs acsSignedContent with the fixtures' test
// chain, answers each CReq with an otp screen (1234 passes) as
// docs/app-channel.md describes, and lets a test change any CRes, or the
// raw answer, to play an ACS that answers wrong. Erro messages the SDK posts
// are kept in `erros`.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { CompactSign, importJWK } from "jose";
import { counterIV, ephemeralKeyPair, exchangeKey, open, seal } from "../exchange.mjs";

/** The fixtures' certificates and keys (test/fixtures/certs.json). */
export const certs = JSON.parse(readFileSync(new URL("fixtures/certs.json", import.meta.url)));

/** Signs an acsSignedContent payload with a leaf's key and an x5c chain. */
export async function sign(payload, { leaf = certs.leaf, x5c = [certs.leaf.der, certs.inter.der], alg = "ES256" } = {}) {
  const key = await importJWK({ ...leaf.key, alg }, alg);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg, x5c }).sign(key);
}

/** What every CRes carries: the CReq's ids and version, and the counter. */
const cresOf = (creq, n) => ({
  threeDSServerTransID: creq.threeDSServerTransID,
  acsTransID: creq.acsTransID,
  sdkTransID: creq.sdkTransID,
  messageType: "CRes",
  messageVersion: creq.messageVersion,
  acsCounterAtoS: String(n).padStart(3, "0"),
});

const screen = (creq, n, wrong) => ({
  ...cresOf(creq, n),
  challengeCompletionInd: "N",
  acsUiType: "01",
  challengeInfoHeader: "Purchase authentication",
  challengeInfoLabel: "Code",
  challengeInfoText: wrong ? "Wrong code: 2 attempts left" : "We sent a code to your phone",
  ...(wrong ? { challengeInfoTextIndicator: "Y" } : {}),
  submitAuthenticationLabel: "Submit",
  whyInfoLabel: "Why",
  whyInfoText: "To keep your card safe",
  challengeAddInfo: "Sandbox: 1234 passes",
});

const final = (creq, n, transStatus) => ({
  ...cresOf(creq, n),
  challengeCompletionInd: "Y",
  transStatus,
});

/**
 * Starts the ACS on a free loopback port. `answer(cres, creq)` may return a
 * changed CRes, {cres, enc} to answer in another enc, {raw, contentType} to
 * answer that text instead, or {hold: true} to answer nothing until the ACS
 * is closed.
 */
export async function startFakeAcs() {
  const acs = { creqs: [], erros: [], answer: (cres) => cres, held: [] };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString();
    if (/application\/json/.test(req.headers["content-type"] ?? "")) {
      acs.erros.push({ message: JSON.parse(body), contentType: req.headers["content-type"] });
      res.writeHead(200).end();
      return;
    }
    const { header, text } = await open({ key: acs.key, compact: body, fromACS: false });
    const creq = JSON.parse(text);
    acs.creqs.push({ header, creq });
    const n = Number(creq.sdkCounterStoA);
    let cres;
    if (creq.challengeDataEntry === "1234") cres = final(creq, n, "Y");
    else if (creq.challengeCancel) cres = final(creq, n, "N");
    else cres = screen(creq, n, creq.challengeDataEntry !== undefined);
    const out = acs.answer(cres, creq);
    if (out?.hold) {
      acs.held.push(res);
      return;
    }
    if (out?.raw !== undefined) {
      res.writeHead(200, { "Content-Type": out.contentType ?? "application/jose; charset=UTF-8" }).end(out.raw);
      return;
    }
    const enc = out.enc ?? header.enc;
    const compact = await seal({
      key: acs.key, enc, kid: creq.acsTransID, fromACS: true, iv: counterIV(enc, true, n), plaintext: out.cres ?? out,
    });
    res.writeHead(200, { "Content-Type": "application/jose; charset=UTF-8" }).end(compact);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  acs.url = `http://127.0.0.1:${server.address().port}/acs/sdk`;

  /** What a lookup answers for the SDK's parameters: the ids and acsSignedContent. */
  acs.lookup = async (params, { signWith, payload = {} } = {}) => {
    const eph = await ephemeralKeyPair();
    acs.key = await exchangeKey(eph.privateKey, params.sdkEphemPubKey, params.sdkReferenceNumber);
    const acsSignedContent = await sign({
      acsURL: acs.url, acsEphemPubKey: eph.publicJwk, sdkEphemPubKey: params.sdkEphemPubKey, ...payload,
    }, signWith);
    return {
      threeDSServerTransID: randomUUID(), acsTransID: randomUUID(), acsRefNumber: "3DS_LOA_ACS_TEST",
      acsSignedContent, messageVersion: params.messageVersion,
    };
  };
  acs.close = () => {
    for (const res of acs.held) res.destroy();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return acs;
}
