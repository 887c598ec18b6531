// The SDK's cryptography against the known-answer vectors made with
// WebCrypto alone (emulator/jose/testdata/kat.json and keys.json of the
// repository; KAT_DIR names another folder), and its Concat KDF against
// RFC 7518's own example (Appendix C). No sandbox needed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { compactDecrypt, importJWK } from "jose";
import { deviceInformation, EC_VARIANTS, sdkEncData } from "../device.mjs";
import {
  concatKDF, concatKDFOf, counterIV, ENCS, exchangeKey, importPrivateJwk, ivSize, open, seal, sharedSecret, unb64u,
} from "../exchange.mjs";
import { Challenge } from "../sdk.mjs";
import { openEcSdkEncData } from "./ds.mjs";

const dir = process.env.KAT_DIR ? new URL(`file://${process.env.KAT_DIR.replace(/\/?$/, "/")}`)
  : new URL("../../../../emulator/jose/testdata/", import.meta.url);
const kat = JSON.parse(readFileSync(new URL("kat.json", dir)));
const keys = JSON.parse(readFileSync(new URL("keys.json", dir)));
const hex = (b) => Buffer.from(b).toString("hex");
const pub = ({ kty, crv, x, y }) => ({ kty, crv, x, y });

describe("the exchange key", () => {
  test("ECDH gives the vectors' shared secret from either side", async () => {
    const fromSDK = await sharedSecret(await importPrivateJwk(keys.sdk), pub(keys.acs));
    const fromACS = await sharedSecret(await importPrivateJwk(keys.acs), pub(keys.sdk));
    assert.equal(hex(fromSDK), kat.sharedSecret);
    assert.equal(hex(fromACS), kat.sharedSecret);
  });

  test("the Concat KDF with the SDK's reference number gives the vectors' key", async () => {
    const key = await exchangeKey(await importPrivateJwk(keys.sdk), pub(keys.acs), kat.sdkReferenceNumber);
    assert.equal(hex(key), kat.key);
    assert.equal(key.length, 32);
  });

  test("the Concat KDF gives RFC 7518 Appendix C's key from its keys, apu Alice, apv Bob", async () => {
    // RFC 7518, Appendix C: ECDH-ES, enc A128GCM, a 128-bit key.
    const alice = { kty: "EC", crv: "P-256", x: "gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0", y: "SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps", d: "0_NxaRPUMQoAJt50Gz8YiTr8gRTwyEaCumd-MToTmIo" };
    const bob = { kty: "EC", crv: "P-256", x: "weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ", y: "e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck" };
    const z = await sharedSecret(await importPrivateJwk(alice), bob);
    assert.equal(hex(z), "9e56d91d817135d372834283bf84269cfb316ea3da806a48f6daa7798cfe90c4");
    const key = await concatKDFOf({ z, algorithmID: "A128GCM", partyUInfo: "Alice", partyVInfo: "Bob", keyBits: 128 });
    assert.equal(Buffer.from(key).toString("base64url"), "VqqN6vgjbSBcIijNcacQGg");
  });

  test("another reference number gives another key", async () => {
    const z = Buffer.from(kat.sharedSecret, "hex");
    assert.notEqual(hex(await concatKDF(z, "3DS_LOA_SDK_STIN_020100_00142")), kat.key);
  });

  test("a public key that is not EC P-256 is refused", async () => {
    const priv = await importPrivateJwk(keys.sdk);
    await assert.rejects(sharedSecret(priv, { kty: "RSA", n: "AQAB", e: "AQAB" }), /not an EC P-256/);
  });
});

describe("the CReq and CRes vectors", () => {
  const key = Buffer.from(kat.key, "hex");
  assert.equal(kat.messages.length, 12, "both enc, both directions, counters 0, 1, 7");
  for (const m of kat.messages) {
    const fromACS = m.direction === "ACSToSDK";
    test(`${m.enc} ${m.direction} counter ${m.counter}: decrypts to the vector's plaintext`, async () => {
      const got = await open({ key, compact: m.compact, fromACS });
      assert.equal(got.text, m.plaintext);
      assert.deepEqual(got.header, { alg: "dir", enc: m.enc, kid: kat.acsTransID });
      assert.deepEqual(got.iv, counterIV(m.enc, fromACS, m.counter), "the counter IV");
      assert.equal(got.iv.length, ivSize(m.enc));
      const field = fromACS ? "acsCounterAtoS" : "sdkCounterStoA";
      assert.equal(JSON.parse(got.text)[field], String(m.counter).padStart(3, "0"));
    });
    test(`${m.enc} ${m.direction} counter ${m.counter}: encrypts to the vector, byte for byte`, async () => {
      const compact = await seal({
        key, enc: m.enc, kid: kat.acsTransID, fromACS, iv: counterIV(m.enc, fromACS, m.counter), plaintext: m.plaintext,
      });
      assert.equal(compact, m.compact);
    });
    if (m.enc === "A128GCM") {
      test(`A128GCM ${m.direction} counter ${m.counter}: the other direction's half does not decrypt it`, async () => {
        await assert.rejects(open({ key, compact: m.compact, fromACS: !fromACS }));
      });
    }
  }

  test("the SDK's CReqs carry the counters and IVs of the vectors", async () => {
    for (const enc of ENCS) {
      const ch = new Challenge({
        key, enc, ivs: "counter", messageVersion: "2.2.0",
        ids: { threeDSServerTransID: "t", acsTransID: kat.acsTransID, sdkTransID: "s" },
      });
      for (const m of kat.messages.filter((x) => x.enc === enc && x.direction === "SDKToACS")) {
        const body = ch.creq({}, m.counter);
        assert.equal(body.sdkCounterStoA, String(m.counter).padStart(3, "0"));
        const compact = await ch.seal(m.plaintext, { counter: m.counter });
        assert.equal(compact, m.compact, `${enc} counter ${m.counter}`);
      }
    }
  });

  test("a random IV is taken too: the message opens with the key", async () => {
    for (const enc of ENCS) {
      const compact = await seal({ key, enc, kid: kat.acsTransID, plaintext: { a: 1 } });
      const got = await open({ key, compact, fromACS: false });
      assert.equal(got.text, '{"a":1}');
      assert.equal(got.iv.length, ivSize(enc));
    }
  });

  test("a changed tag does not decrypt", async () => {
    const m = kat.messages[1];
    const parts = m.compact.split(".");
    const tag = unb64u(parts[4]);
    tag[0] ^= 1;
    parts[4] = Buffer.from(tag).toString("base64url");
    await assert.rejects(open({ key, compact: parts.join("."), fromACS: true }));
  });
});

describe("sdkEncData", () => {
  const rsaPublic = { kty: "RSA", n: keys.rsa.n, e: keys.rsa.e, kid: "kat-rsa", use: "enc" };
  const ecPublic = { ...pub(keys.ds), kid: "kat-ec", use: "enc" };
  const rsaDS = { directoryServerId: "F055545342", encryptionKey: rsaPublic };
  const ecDS = { directoryServerId: kat.sdkEncData.directoryServerID, encryptionKey: ecPublic };
  const rsaPrivate = () => importJWK({ ...keys.rsa, alg: "RSA-OAEP-256" }, "RSA-OAEP-256");

  test("the vectors' RSA sdkEncData opens with the directory server's key", async () => {
    const { plaintext, protectedHeader } = await compactDecrypt(kat.sdkEncData.rsa, await rsaPrivate());
    assert.equal(new TextDecoder().decode(plaintext), kat.sdkEncData.deviceInfo);
    assert.deepEqual(protectedHeader, { alg: "RSA-OAEP-256", enc: "A128CBC-HS256", kid: "kat-rsa" });
  });

  test("the vectors' EC sdkEncData (Android's dir) opens with the key agreed with the server's id", async () => {
    const got = await openEcSdkEncData(kat.sdkEncData.ec, keys.ds, kat.sdkEncData.directoryServerID);
    assert.equal(got.text, kat.sdkEncData.deviceInfo);
    assert.equal(got.header.alg, "dir");
  });

  test("the SDK's RSA sdkEncData: RSA-OAEP-256, A128CBC-HS256, the key's kid", async () => {
    const info = deviceInformation({ C005: "th-TH" });
    const jwe = await sdkEncData(rsaDS, info);
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, await rsaPrivate());
    assert.deepEqual(JSON.parse(new TextDecoder().decode(plaintext)), info);
    assert.deepEqual(protectedHeader, { alg: "RSA-OAEP-256", enc: "A128CBC-HS256", kid: "kat-rsa" });
    const bare = await sdkEncData(rsaDS, info, { kid: false });
    assert.equal((await compactDecrypt(bare, await rsaPrivate())).protectedHeader.kid, undefined);
  });

  for (const variant of EC_VARIANTS) {
    test(`the SDK's EC sdkEncData, alg ${variant}: epk, the kid, opened with the server's id as PartyVInfo`, async () => {
      const info = deviceInformation({ C001: "iOS" });
      const jwe = await sdkEncData(ecDS, info, { ecVariant: variant });
      assert.equal(jwe.split(".")[1], "", "no encrypted key");
      const got = await openEcSdkEncData(jwe, keys.ds, ecDS.directoryServerId);
      assert.deepEqual(JSON.parse(got.text), info);
      assert.equal(got.header.alg, variant);
      assert.equal(got.header.enc, "A128CBC-HS256");
      assert.equal(got.header.kid, "kat-ec");
      assert.deepEqual(Object.keys(got.header.epk).sort(), ["crv", "kty", "x", "y"]);
      await assert.rejects(openEcSdkEncData(jwe, keys.ds, "F155545342"), "another server's id derives another key");
    });
  }
});
