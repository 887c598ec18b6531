// GET /sdk/directory-servers: what an app hands its SDK for each directory
// server (docs/app-channel.md, "Keys and roots").
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, test } from "node:test";
import { importJWK } from "jose";
import { deviceInformation, sdkEncData } from "../device.mjs";
import { baseURL, directoryServers } from "./sandbox.mjs";

const WANT = {
  VISA: "A000000003",
  MASTERCARD: "A000000004",
  AMEX: "A000000025",
  DISCOVER: "A000000152",
  JCB: "A000000065",
  UPI: "A000000333",
};

describe("the directory servers", { concurrency: true }, () => {
  test("answer without a token, as JSON", async () => {
    const res = await fetch(`${baseURL()}/sdk/directory-servers`);
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.ok(Array.isArray(JSON.parse(body).directoryServers), body.slice(0, 200));
  });

  test("one per card scheme with its registered id, and Stripe's two test ids", async () => {
    const all = await directoryServers();
    const byScheme = Object.fromEntries(all.filter((d) => d.scheme).map((d) => [d.scheme, d.directoryServerId]));
    assert.deepEqual(byScheme, WANT);
    const test = all.filter((d) => !d.scheme).map((d) => [d.directoryServerId, d.encryptionKey.kty]).sort();
    assert.deepEqual(test, [["F055545342", "RSA"], ["F155545342", "EC"]]);
    assert.equal(new Set(all.map((d) => d.directoryServerId)).size, all.length, "no id twice");
  });

  test("each key is a public JWK for encryption with its kid, RSA or EC P-256", async () => {
    for (const ds of await directoryServers()) {
      const k = ds.encryptionKey;
      assert.equal(k.use, "enc", ds.directoryServerId);
      assert.ok(typeof k.kid === "string" && k.kid !== "", `${ds.directoryServerId}: kid`);
      for (const priv of ["d", "p", "q", "dp", "dq", "qi"]) assert.equal(k[priv], undefined, `${ds.directoryServerId}: no private ${priv}`);
      if (k.kty === "RSA") {
        assert.equal(k.e, "AQAB");
        assert.ok(Buffer.from(k.n, "base64url").length >= 256, `${ds.directoryServerId}: an RSA key of 2048 bits at least`);
        await importJWK(k, "RSA-OAEP-256");
      } else {
        assert.deepEqual([k.kty, k.crv], ["EC", "P-256"], ds.directoryServerId);
        await importJWK(k, "ECDH-ES");
      }
    }
  });

  test("the roots are CA certificates, DER in standard base64, valid now", async () => {
    for (const ds of await directoryServers()) {
      assert.ok(ds.rootCertificates.length >= 1, ds.directoryServerId);
      for (const b64 of ds.rootCertificates) {
        assert.match(b64, /^[A-Za-z0-9+/]+=*$/, "standard base64");
        const root = new X509Certificate(Buffer.from(b64, "base64"));
        assert.ok(root.ca, `${ds.directoryServerId}: the root is a CA`);
        assert.ok(root.verify(root.publicKey), `${ds.directoryServerId}: the root signs itself`);
        assert.ok(new Date(root.validFrom) <= new Date() && new Date() <= new Date(root.validTo), `${ds.directoryServerId}: the root is valid now`);
      }
    }
  });

  test("encryptionCertificate holds the same key, issued by the server's root", async () => {
    for (const ds of await directoryServers()) {
      assert.ok(ds.encryptionCertificate, `${ds.directoryServerId}: encryptionCertificate`);
      const cert = new X509Certificate(Buffer.from(ds.encryptionCertificate, "base64"));
      const jwk = cert.publicKey.export({ format: "jwk" });
      const k = ds.encryptionKey;
      const same = k.kty === "RSA" ? jwk.n === k.n && jwk.e === k.e : jwk.x === k.x && jwk.y === k.y && jwk.crv === k.crv;
      assert.ok(same, `${ds.directoryServerId}: the certificate's key is encryptionKey`);
      const roots = ds.rootCertificates.map((b) => new X509Certificate(Buffer.from(b, "base64")));
      assert.ok(roots.some((r) => cert.checkIssued(r) && cert.verify(r.publicKey)), `${ds.directoryServerId}: issued by its root`);
    }
  });

  test("the SDK encrypts device information to every server's key", async () => {
    for (const ds of await directoryServers()) {
      const jwe = await sdkEncData(ds, deviceInformation());
      const header = JSON.parse(Buffer.from(jwe.split(".")[0], "base64url"));
      assert.equal(header.kid, ds.encryptionKey.kid);
      assert.equal(header.alg, ds.encryptionKey.kty === "RSA" ? "RSA-OAEP-256" : "dir");
      assert.equal(jwe.split(".").length, 5);
    }
  });
});
