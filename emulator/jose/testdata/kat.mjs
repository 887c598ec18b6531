// Computes the known-answer vectors of package jose outside Go, with
// Node's WebCrypto only (no package from npm):
//
//   node kat.mjs          writes kat.json (the random parts anew)
//   node kat.mjs --check  recomputes the deterministic parts and compares
//                         them with kat.json; exit 1 on a difference
//
// The keys are fixed test keys (keys.json). The CReq/CRes exchange follows
// the EMV 3DS SDK technical guide as the open SDKs implement it: ECDH on
// P-256, Concat KDF (SHA-256, empty AlgorithmID and PartyUInfo, PartyVInfo
// the SDK's reference number, 256 bits), JWE alg dir with A128CBC-HS256
// (the whole key both ways) or A128GCM (the first half from the SDK, the
// last half from the ACS), IVs made of the counter padded with 0x00 (from
// the SDK) or 0xFF (from the ACS).
import { readFileSync, writeFileSync } from "node:fs";

const s = globalThis.crypto.subtle;
const dir = new URL(".", import.meta.url);
const keys = JSON.parse(readFileSync(new URL("keys.json", dir)));
const enc = new TextEncoder();
const b64u = (b) => Buffer.from(b).toString("base64url");
const hex = (b) => Buffer.from(b).toString("hex");
const cat = (...parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const lp = (b) => cat(u32(b.length), b);

async function ecdh(priv, pub) {
  const { d, ...pubOnly } = pub;
  const k = await s.importKey("jwk", priv, { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const p = await s.importKey("jwk", pubOnly, { name: "ECDH", namedCurve: "P-256" }, false, []);
  return new Uint8Array(await s.deriveBits({ name: "ECDH", public: p }, k, 256));
}

async function concatKDF(z, algID, partyV, bits) {
  const other = cat(lp(enc.encode(algID)), lp(Buffer.alloc(0)), lp(partyV), u32(bits));
  return new Uint8Array(await s.digest("SHA-256", cat(u32(1), z, other))).slice(0, bits / 8);
}

function counterIV(size, fromACS, counter) {
  const iv = Buffer.alloc(size, fromACS ? 0xff : 0x00);
  iv[size - 1] = counter;
  return iv;
}

async function sealCBC(cek, aad, iv, pt) {
  const ek = await s.importKey("raw", cek.slice(16), "AES-CBC", false, ["encrypt"]);
  const ct = new Uint8Array(await s.encrypt({ name: "AES-CBC", iv }, ek, pt));
  const mk = await s.importKey("raw", cek.slice(0, 16), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const al = Buffer.alloc(8); al.writeBigUInt64BE(BigInt(aad.length * 8));
  const tag = new Uint8Array(await s.sign("HMAC", mk, cat(aad, iv, ct, al))).slice(0, 16);
  return [ct, tag];
}

async function sealGCM(cek, aad, iv, pt) {
  const k = await s.importKey("raw", cek, "AES-GCM", false, ["encrypt"]);
  const out = new Uint8Array(await s.encrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, k, pt));
  return [out.slice(0, -16), out.slice(-16)];
}

// exchange encrypts one CReq (fromACS false) or CRes as a compact JWE.
async function exchange(key, encName, kid, fromACS, counter, plaintext) {
  const protectedHdr = b64u(enc.encode(JSON.stringify({ alg: "dir", enc: encName, kid })));
  const aad = enc.encode(protectedHdr);
  const pt = enc.encode(plaintext);
  let iv, ct, tag;
  if (encName === "A128GCM") {
    iv = counterIV(12, fromACS, counter);
    [ct, tag] = await sealGCM(fromACS ? key.slice(16) : key.slice(0, 16), aad, iv, pt);
  } else {
    iv = counterIV(16, fromACS, counter);
    [ct, tag] = await sealCBC(key, aad, iv, pt);
  }
  return [protectedHdr, "", b64u(iv), b64u(ct), b64u(tag)].join(".");
}

async function deterministic() {
  const ref = "3DS_LOA_SDK_STIN_020200_00961";
  const acsTransID = "4f2c3b1e-9d8a-4c7b-8e6f-5a4b3c2d1e0f";
  const z = await ecdh(keys.acs, keys.sdk);
  const key = await concatKDF(z, "", enc.encode(ref), 256);
  const out = { sdkReferenceNumber: ref, acsTransID, sharedSecret: hex(z), key: hex(key), messages: [] };
  const creq = (n) => JSON.stringify({ acsTransID, messageType: "CReq", messageVersion: "2.2.0", sdkCounterStoA: String(n).padStart(3, "0"),
    sdkTransID: "b2d6a1f0-3c4e-4a5b-9c8d-7e6f5a4b3c2d", threeDSServerTransID: "8a9b0c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d" });
  const cres = (n) => JSON.stringify({ acsCounterAtoS: String(n).padStart(3, "0"), acsTransID, challengeCompletionInd: "N", messageType: "CRes" });
  for (const encName of ["A128CBC-HS256", "A128GCM"]) {
    for (const counter of [0, 1, 7]) {
      out.messages.push({ enc: encName, direction: "SDKToACS", counter, plaintext: creq(counter),
        compact: await exchange(key, encName, acsTransID, false, counter, creq(counter)) });
      out.messages.push({ enc: encName, direction: "ACSToSDK", counter, plaintext: cres(counter),
        compact: await exchange(key, encName, acsTransID, true, counter, cres(counter)) });
    }
  }
  return out;
}

// sdkEncData: device information encrypted to a directory server's key,
// as the SDKs do it (random keys and IVs: made once, decrypted by Go).
async function sdkEncData() {
  const deviceInfo = JSON.stringify({ DV: "1.4", DD: { C001: "Android", C002: "Pixel 8", C005: "th-TH" }, DPNA: {}, SW: [] });
  const { d, p, q, dp, dq, qi, ...rsaPub } = keys.rsa;
  const rk = await s.importKey("jwk", { ...rsaPub, alg: "RSA-OAEP-256" }, { name: "RSA-OAEP", hash: "SHA-256" }, false, ["encrypt"]);
  const cek = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const rsaHdr = b64u(enc.encode(JSON.stringify({ alg: "RSA-OAEP-256", enc: "A128CBC-HS256", kid: "kat-rsa" })));
  const ek = new Uint8Array(await s.encrypt({ name: "RSA-OAEP" }, rk, cek));
  const [ct, tag] = await sealCBC(cek, enc.encode(rsaHdr), iv, enc.encode(deviceInfo));
  const rsaJWE = [rsaHdr, b64u(ek), b64u(iv), b64u(ct), b64u(tag)].join(".");

  // EC, as the Android SDK does (alg dir, epk), to directory server A000000003.
  const dsID = "A000000003";
  const eph = await s.exportKey("jwk", (await s.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])).privateKey);
  const ecKey = await concatKDF(await ecdh(eph, keys.ds), "", enc.encode(dsID), 256);
  const ecHdr = b64u(enc.encode(JSON.stringify({ alg: "dir", enc: "A128CBC-HS256", epk: { kty: "EC", crv: "P-256", x: eph.x, y: eph.y } })));
  const iv2 = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const [ct2, tag2] = await sealCBC(ecKey, enc.encode(ecHdr), iv2, enc.encode(deviceInfo));
  const ecJWE = [ecHdr, "", b64u(iv2), b64u(ct2), b64u(tag2)].join(".");
  return { deviceInfo, directoryServerID: dsID, rsa: rsaJWE, ec: ecJWE };
}

const file = new URL("kat.json", dir);
const det = await deterministic();
if (process.argv.includes("--check")) {
  const have = JSON.parse(readFileSync(file));
  const { sdkEncData: _, ...kept } = have;
  if (JSON.stringify(kept) !== JSON.stringify(det)) {
    console.error("kat.json differs from what WebCrypto computes now");
    process.exit(1);
  }
  console.log("kat.json: the deterministic vectors match WebCrypto's");
} else {
  writeFileSync(file, JSON.stringify({ ...det, sdkEncData: await sdkEncData() }, null, 1) + "\n");
}
