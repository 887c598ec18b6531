// The cryptography of the CReq/CRes exchange, as docs/app-channel.md states
// it: ECDH on P-256, the Concat KDF of NIST SP 800-56A with SHA-256 into 256
// bits, and compact JWEs with alg "dir" in A128CBC-HS256 or A128GCM.
//
// The key is derived with WebCrypto; the JWEs are made and read by the npm
// package jose with that key.
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from "jose";

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();

/** The two content encryptions the exchange takes. */
export const ENCS = Object.freeze(["A128CBC-HS256", "A128GCM"]);

/** Base64url without padding, of bytes. */
export const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

/** Bytes of a base64url text (padding and the standard alphabet taken). */
export const unb64u = (text) => new Uint8Array(Buffer.from(text, "base64url"));

const u32 = (n) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** An ephemeral ECDH key pair on P-256, its public half as a JWK. */
export async function ephemeralKeyPair() {
  const pair = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
  const { kty, crv, x, y } = await subtle.exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, publicJwk: { kty, crv, x, y } };
}

/** Imports a private ECDH key given as a JWK (with its d). */
export function importPrivateJwk(jwk) {
  const { kty, crv, x, y, d } = jwk;
  return subtle.importKey("jwk", { kty, crv, x, y, d }, { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
}

/** Z: the ECDH shared secret of a private key and a public JWK on P-256. */
export async function sharedSecret(privateKey, publicJwk) {
  if (publicJwk?.kty !== "EC" || publicJwk.crv !== "P-256" || !publicJwk.x || !publicJwk.y) {
    throw new Error("the public key is not an EC P-256 JWK");
  }
  const { kty, crv, x, y } = publicJwk;
  const pub = await subtle.importKey("jwk", { kty, crv, x, y }, { name: "ECDH", namedCurve: "P-256" }, false, []);
  return new Uint8Array(await subtle.deriveBits({ name: "ECDH", public: pub }, privateKey, 256));
}

const bytesOf = (v) => (typeof v === "string" ? utf8.encode(v) : v);
const lengthPrefixed = (v) => concat(u32(v.length), v);

/**
 * The Concat KDF of NIST SP 800-56A with SHA-256, one round, as JOSE's
 * ECDH-ES uses it: SHA-256(00000001 || Z || OtherInfo), OtherInfo the
 * length-prefixed AlgorithmID, PartyUInfo and PartyVInfo, then the key's
 * length in bits; all lengths four bytes big-endian. Answers keyBits/8 bytes.
 */
export async function concatKDFOf({ z, algorithmID = "", partyUInfo = "", partyVInfo = "", keyBits = 256 }) {
  if (keyBits <= 0 || keyBits > 256 || keyBits % 8 !== 0) throw new Error(`a key of ${keyBits} bits needs more than one round`);
  const otherInfo = concat(
    lengthPrefixed(bytesOf(algorithmID)), lengthPrefixed(bytesOf(partyUInfo)), lengthPrefixed(bytesOf(partyVInfo)), u32(keyBits),
  );
  const digest = new Uint8Array(await subtle.digest("SHA-256", concat(u32(1), z, otherInfo)));
  return digest.slice(0, keyBits / 8);
}

/**
 * The exchange's Concat KDF into 256 bits: an empty AlgorithmID, an empty
 * PartyUInfo, the length-prefixed PartyVInfo and 00000100.
 */
export function concatKDF(z, partyVInfo) {
  return concatKDFOf({ z, partyVInfo });
}

/** The 32-byte exchange key: ECDH, then the Concat KDF with the SDK's reference number. */
export async function exchangeKey(privateKey, acsEphemPubKey, sdkReferenceNumber) {
  return concatKDF(await sharedSecret(privateKey, acsEphemPubKey), sdkReferenceNumber);
}

/**
 * The content key of one direction: the whole key for A128CBC-HS256 (its MAC
 * key the first 16 bytes); for A128GCM the first 16 bytes from the SDK, the
 * last 16 from the ACS.
 */
export function directionKey(key, enc, fromACS) {
  if (key.length !== 32) throw new Error(`the exchange key has ${key.length} bytes, want 32`);
  if (enc === "A128CBC-HS256") return key;
  if (enc === "A128GCM") return fromACS ? key.slice(16) : key.slice(0, 16);
  throw new Error(`enc ${enc} is not one of ${ENCS.join(", ")}`);
}

/** The IV size of an enc: 16 bytes for CBC, 12 for GCM. */
export const ivSize = (enc) => (enc === "A128GCM" ? 12 : 16);

/**
 * The counter IV: the counter in the last byte, the other bytes 0x00 from the
 * SDK (the EMV convention) or 0xFF from the ACS (the docs' ACS IVs).
 */
export function counterIV(enc, fromACS, counter) {
  const iv = new Uint8Array(ivSize(enc)).fill(fromACS ? 0xff : 0x00);
  iv[iv.length - 1] = counter;
  return iv;
}

/**
 * Encrypts one message (a CReq, or for tests a CRes) as a compact JWE,
 * header {"alg":"dir","enc":enc,"kid":kid}. iv: bytes, or undefined for a
 * random one (the docs: any IV is taken).
 */
export async function seal({ key, enc, kid, fromACS = false, iv, plaintext, header }) {
  const text = typeof plaintext === "string" ? plaintext : JSON.stringify(plaintext);
  const jwe = new CompactEncrypt(utf8.encode(text)).setProtectedHeader(header ?? { alg: "dir", enc, kid });
  if (iv) jwe.setInitializationVector(iv);
  return jwe.encrypt(directionKey(key, enc, fromACS));
}

/**
 * Decrypts a compact JWE of the exchange. Returns the protected header, the
 * IV, and the plaintext as text; throws on a JWE that does not decrypt.
 */
export async function open({ key, compact, fromACS = true }) {
  const header = decodeProtectedHeader(compact);
  if (header.alg !== "dir") throw new Error(`alg ${header.alg}, want dir`);
  const { plaintext } = await compactDecrypt(compact, directionKey(key, header.enc, fromACS), {
    keyManagementAlgorithms: ["dir"],
    contentEncryptionAlgorithms: [...ENCS],
  });
  const iv = unb64u(compact.split(".")[2]);
  return { header, iv, text: new TextDecoder("utf-8", { fatal: true }).decode(plaintext) };
}

/** The five parts of a compact JWE, or null when the text has not five. */
export function jweParts(text) {
  const parts = text.split(".");
  return parts.length === 5 ? parts : null;
}
