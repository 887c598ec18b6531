// sdkEncData: the device information the SDK encrypts to the directory
// server's key (docs/app-channel.md, "The app lookup"):
//
//   RSA key: alg RSA-OAEP-256, enc A128CBC-HS256, the key's kid (standard JOSE)
//   EC key:  alg "dir" (Android) or "ECDH-ES" (iOS), the SDK's ephemeral key
//            in epk, the key agreed as for the CReq/CRes exchange with the
//            directory server's id as PartyVInfo
import { CompactEncrypt, importJWK } from "jose";
import { b64u, concatKDF, ephemeralKeyPair, sharedSecret } from "./exchange.mjs";

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();

/** The EC variants of sdkEncData: Android's and iOS's. */
export const EC_VARIANTS = Object.freeze(["dir", "ECDH-ES"]);

/**
 * EMV device information as an Android phone sends it; `overrides` replace
 * entries of DD (C001 the platform, C005 the locale...).
 */
export function deviceInformation(overrides = {}) {
  return {
    DV: "1.6",
    DD: {
      C001: "Android",
      C002: "Pixel 8",
      C003: "Android",
      C004: "15",
      C005: "en-US",
      C006: "Europe/London",
      C007: "0",
      ...overrides,
    },
    DPNA: {},
    SW: [],
  };
}

/**
 * A128CBC-HS256 by hand (RFC 7518 5.2.2.1) with WebCrypto, for the iOS
 * variant whose key jose does not derive: the MAC key is the first 16 bytes.
 */
export async function sealCBCHS256(key, protectedB64, iv, plaintext) {
  const aesKey = await subtle.importKey("raw", key.slice(16), "AES-CBC", false, ["encrypt"]);
  const ct = new Uint8Array(await subtle.encrypt({ name: "AES-CBC", iv }, aesKey, plaintext));
  const aad = utf8.encode(protectedB64);
  const al = new Uint8Array(8);
  new DataView(al.buffer).setBigUint64(0, BigInt(aad.length * 8));
  const macKey = await subtle.importKey("raw", key.slice(0, 16), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await subtle.sign("HMAC", macKey, Buffer.concat([aad, iv, ct, al])));
  return [protectedB64, "", b64u(iv), b64u(ct), b64u(mac.slice(0, 16))].join(".");
}

/**
 * Encrypts the device information to a directory server's key, an entry of
 * GET /sdk/directory-servers. Options: ecVariant "dir" or "ECDH-ES" for an
 * EC key; kid false to leave the key's kid out of the header.
 */
export async function sdkEncData(directoryServer, deviceInfo, { ecVariant = "dir", kid = true } = {}) {
  const key = directoryServer.encryptionKey;
  const plaintext = utf8.encode(JSON.stringify(deviceInfo));
  const kidPart = kid && key.kid ? { kid: key.kid } : {};
  if (key.kty === "RSA") {
    const pub = await importJWK({ kty: "RSA", n: key.n, e: key.e }, "RSA-OAEP-256");
    return new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: "RSA-OAEP-256", enc: "A128CBC-HS256", ...kidPart })
      .encrypt(pub);
  }
  if (key.kty !== "EC" || key.crv !== "P-256") {
    throw new Error(`directory server ${directoryServer.directoryServerId}: a key of kty ${key.kty} ${key.crv ?? ""}`);
  }
  if (!EC_VARIANTS.includes(ecVariant)) throw new Error(`ecVariant ${ecVariant}, want one of ${EC_VARIANTS}`);
  const eph = await ephemeralKeyPair();
  const cek = await concatKDF(await sharedSecret(eph.privateKey, key), directoryServer.directoryServerId);
  const header = { alg: ecVariant, enc: "A128CBC-HS256", epk: eph.publicJwk, ...kidPart };
  if (ecVariant === "dir") {
    return new CompactEncrypt(plaintext).setProtectedHeader(header).encrypt(cek);
  }
  const protectedB64 = b64u(utf8.encode(JSON.stringify(header)));
  return sealCBCHS256(cek, protectedB64, globalThis.crypto.getRandomValues(new Uint8Array(16)), plaintext);
}
