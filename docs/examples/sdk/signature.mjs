// acsSignedContent: a compact JWS (alg ES256) whose x5c holds the ACS's
// certificate chain, leaf first, under the card's directory server's root
// (docs/app-channel.md). The SDK checks the signature with the leaf's key
// (jose) and the chain with Node's X509Certificate; in live mode the chain
// must lead to the roots the app was given, in test mode (as Stripe's SDKs
// have it) to itself.
import { X509Certificate } from "node:crypto";
import { compactVerify, decodeProtectedHeader, importJWK } from "jose";

/** Why an acsSignedContent was refused; the SDK starts no challenge. */
export class SignatureError extends Error {
  constructor(message) {
    super(message);
    this.name = "SignatureError";
  }
}

/** An X509Certificate of DER in standard base64, as x5c and the roots carry them. */
export function certificate(b64, what) {
  try {
    return new X509Certificate(Buffer.from(b64, "base64"));
  } catch (err) {
    throw new SignatureError(`${what} is not a DER certificate: ${err.message}`);
  }
}

function checkDates(cert, now, what) {
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) {
    throw new SignatureError(`${what} (${cert.subject.replace(/\n/g, ", ")}) is not valid at ${now.toISOString()}: ${cert.validFrom} to ${cert.validTo}`);
  }
}

function issued(child, parent) {
  return parent.ca && child.checkIssued(parent) && child.verify(parent.publicKey);
}

/**
 * Checks the chain: each certificate issued and signed by the next, each
 * within its dates; then, in live mode, the last one is a root or is issued
 * by one. Returns the chain.
 */
export function verifyChain(x5c, { rootCertificates = [], liveMode = true, now = new Date() } = {}) {
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === "string")) {
    throw new SignatureError("x5c is not a non-empty array of certificates");
  }
  const chain = x5c.map((c, i) => certificate(c, `x5c[${i}]`));
  chain.forEach((cert, i) => checkDates(cert, now, `x5c[${i}]`));
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!issued(chain[i], chain[i + 1])) {
      throw new SignatureError(`x5c[${i}] is not issued and signed by x5c[${i + 1}], a CA`);
    }
  }
  const last = chain[chain.length - 1];
  if (!liveMode) {
    // Test mode: the chain only has to hold together, as it does above.
    return chain;
  }
  const roots = rootCertificates.map((r, i) => certificate(r, `root ${i}`));
  for (const root of roots) {
    if (last.raw.equals(root.raw) || issued(last, root)) {
      checkDates(root, now, "the root");
      return chain;
    }
  }
  throw new SignatureError(`x5c does not lead to any of the ${roots.length} published roots (its last certificate is issued by ${last.issuer.replace(/\n/g, ", ")})`);
}

/**
 * Verifies acsSignedContent and returns its header, its payload and the
 * chain. algorithms: the JWS algs taken (ES256, and PS256 which iOS's SDK
 * also takes).
 */
export async function verifyAcsSignedContent(jws, { algorithms = ["ES256", "PS256"], ...chainOptions } = {}) {
  let header;
  try {
    header = decodeProtectedHeader(jws);
  } catch (err) {
    throw new SignatureError(`acsSignedContent is not a compact JWS: ${err.message}`);
  }
  if (!algorithms.includes(header.alg)) {
    throw new SignatureError(`acsSignedContent alg ${header.alg}, want one of ${algorithms.join(", ")}`);
  }
  const chain = verifyChain(header.x5c, chainOptions);
  const key = await importJWK(chain[0].publicKey.export({ format: "jwk" }), header.alg);
  let verified;
  try {
    verified = await compactVerify(jws, key, { algorithms: [header.alg] });
  } catch (err) {
    throw new SignatureError(`acsSignedContent's signature does not verify with the x5c leaf: ${err.message}`);
  }
  let payload;
  try {
    payload = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch (err) {
    throw new SignatureError(`acsSignedContent's payload is not JSON: ${err.message}`);
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new SignatureError("acsSignedContent's payload is not a JSON object");
  }
  return { header, payload, chain };
}
