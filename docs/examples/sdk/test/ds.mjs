// The directory server's side of an EC sdkEncData, for the unit tests: the
// key agreed from the server's private key and the JWE's epk, with the
// server's id as PartyVInfo, then A128CBC-HS256 (jose for alg dir, WebCrypto
// by hand for iOS's ECDH-ES, whose key jose would derive otherwise).
import { compactDecrypt, decodeProtectedHeader } from "jose";
import { concatKDF, importPrivateJwk, sharedSecret, unb64u } from "../exchange.mjs";

const subtle = globalThis.crypto.subtle;

async function openCBCHS256(key, compact) {
  const [protectedB64, , ivB64, ctB64, tagB64] = compact.split(".");
  const aad = new TextEncoder().encode(protectedB64);
  const iv = unb64u(ivB64);
  const ct = unb64u(ctB64);
  const al = new Uint8Array(8);
  new DataView(al.buffer).setBigUint64(0, BigInt(aad.length * 8));
  const macKey = await subtle.importKey("raw", key.slice(0, 16), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await subtle.sign("HMAC", macKey, Buffer.concat([aad, iv, ct, al]))).slice(0, 16);
  if (!Buffer.from(mac).equals(Buffer.from(unb64u(tagB64)))) throw new Error("the tag does not verify");
  const aesKey = await subtle.importKey("raw", key.slice(16), "AES-CBC", false, ["decrypt"]);
  return new Uint8Array(await subtle.decrypt({ name: "AES-CBC", iv }, aesKey, ct));
}

/** Opens an EC sdkEncData (alg dir or ECDH-ES) with the server's private JWK and id. */
export async function openEcSdkEncData(compact, dsPrivateJwk, directoryServerId) {
  const header = decodeProtectedHeader(compact);
  const z = await sharedSecret(await importPrivateJwk(dsPrivateJwk), header.epk);
  const key = await concatKDF(z, directoryServerId);
  let plaintext;
  if (header.alg === "dir") {
    ({ plaintext } = await compactDecrypt(compact, key));
  } else if (header.alg === "ECDH-ES") {
    plaintext = await openCBCHS256(key, compact);
  } else {
    throw new Error(`alg ${header.alg}`);
  }
  return { header, text: new TextDecoder().decode(plaintext) };
}
