// The merchant's server of the example checkout, in Node (18 or later,
// nothing to install). It signs the device data capture's JWT, gets an
// OAuth token, sends the lookup, receives the CRes and the signed result
// callback, and asks the enquiry for the result.
//
//   THREEDS_SANDBOX_URL=http://localhost:8080 node server.js
//
// Settings (environment): THREEDS_SANDBOX_URL (the sandbox's base URL),
// CHECKOUT_CLIENT_ID and CHECKOUT_CLIENT_SECRET (the merchant's OAuth
// client, and the capture JWT's iss and key), PORT (3000).
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const PUBLIC = path.join(__dirname, '..', 'public');

// base64url encodes bytes or a string as Base64Url without padding.
const base64url = (b) => Buffer.from(b).toString('base64url');

// signJWT makes a compact JWS with HS256.
function signJWT(claims, key) {
  const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = base64url(JSON.stringify(claims));
  const sig = crypto.createHmac('sha256', key).update(head + '.' + body).digest('base64url');
  return head + '.' + body + '.' + sig;
}

// verifySignature checks the X-3DS-Signature header of a result callback:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, at most 5 minutes old.
function verifySignature(secret, header, body) {
  const parts = Object.fromEntries(String(header || '').split(',').map((p) => p.split('=', 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300 || !/^[0-9a-f]{64}$/.test(parts.v1 || '')) {
    return false;
  }
  const want = crypto.createHmac('sha256', secret).update(parts.t + '.').update(body).digest();
  return crypto.timingSafeEqual(want, Buffer.from(parts.v1, 'hex'));
}

function readBody(req, limit = 1 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) { reject(new Error('body too large')); req.destroy(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}
const sendJSON = (res, status, v) => send(res, status, 'application/json', JSON.stringify(v));
const escapeHTML = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');

// createCheckout returns the checkout's HTTP server, not yet listening.
// sandboxUrl is the sandbox's base URL, clientId and clientSecret the
// merchant's credentials.
function createCheckout({ sandboxUrl, clientId, clientSecret }) {
  const sandbox = String(sandboxUrl).replace(/\/+$/, '');
  let publicUrl = ''; // this server's URL, once it listens
  let tokenEndpoint = null; // from the discovery document
  let token = null; // { value, expires }
  let signingSecret = null;
  const captures = new Map(); // ddcId -> the capture's outcome
  const cresByID = new Map(); // threeDsServerTransId -> the CRes
  const callbacks = new Map(); // threeDsServerTransId -> the callback

  // accessToken gets (and keeps until a minute before it expires) an
  // OAuth access token with the client's credentials, at the token
  // endpoint the OpenID Connect discovery document names.
  async function accessToken() {
    if (token && token.expires > Date.now() + 60000) { return token.value; }
    if (!tokenEndpoint) {
      const d = await fetch(sandbox + '/.well-known/openid-configuration');
      if (!d.ok) { throw new Error('discovery: HTTP ' + d.status); }
      tokenEndpoint = (await d.json()).token_endpoint;
    }
    const r = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: {
        Authorization: 'Basic ' + Buffer.from(encodeURIComponent(clientId) + ':' + encodeURIComponent(clientSecret)).toString('base64'),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const t = await r.json();
    if (!r.ok) { throw new Error('token: HTTP ' + r.status + ' ' + JSON.stringify(t)); }
    token = { value: t.access_token, expires: Date.now() + t.expires_in * 1000 };
    return token.value;
  }

  // callSandbox sends a JSON request to the sandbox's API with the token.
  async function callSandbox(method, route, body) {
    const r = await fetch(sandbox + route, {
      method,
      headers: { Authorization: 'Bearer ' + await accessToken(), 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  // register tells the sandbox where to send this merchant's results, and
  // reads the secret that signs them.
  async function register() {
    const put = await callSandbox('PUT', '/admin/callback', { url: publicUrl + '/3ds/result-callback' });
    if (put.status !== 200) { throw new Error('register the callback: HTTP ' + put.status + ' ' + JSON.stringify(put.body)); }
    const got = await callSandbox('GET', '/admin/callback');
    signingSecret = got.body.signingSecret;
  }

  const routes = {
    // The page asks for a capture: a ddcId of its own and a JWT signed here,
    // never in the browser.
    'POST /api/capture': async (req, res, body) => {
      const { card, order } = JSON.parse(body);
      const ddcId = crypto.randomUUID();
      const now = Math.floor(Date.now() / 1000);
      const jwt = signJWT({
        iss: clientId, jti: crypto.randomUUID(), iat: now, exp: now + 600,
        OrgUnitId: clientId, ReferenceId: ddcId,
        Payload: { OrderDetails: { OrderNumber: order, Amount: '4999', CurrencyCode: '978' } },
      }, clientSecret);
      sendJSON(res, 200, {
        ddcId, jwt, bin: card, collectUrl: sandbox + '/V2/ddcCollect', callbackUrl: publicUrl + '/3ds/ddc-callback',
      });
    },
    // The capture's iframe lands here with its outcome.
    'POST /3ds/ddc-callback': async (req, res, body) => {
      const form = new URLSearchParams(body.toString());
      captures.set(form.get('ddcId'), Object.fromEntries(form));
      send(res, 200, 'text/html; charset=utf-8', '<!DOCTYPE html><title>capture noted</title><p>capture noted</p>');
    },
    // The lookup (section 4.1), sent from here with the bearer token.
    'POST /api/pay': async (req, res, body) => {
      const { card, order, ddcId, browserInfo } = JSON.parse(body);
      const now = new Date().toISOString();
      const lookup = {
        externalReferenceId: order,
        ddcId,
        threeDsRequestorAuthInd: '01',
        browserInfo: { ...browserInfo, acceptHeader: req.headers.accept || 'text/html', ip: '127.0.0.1' },
        notificationUrl: publicUrl + '/3ds/notify',
        challengeWindowSize: 2,
        acquirerCode: 'EXAMPLE-ACQ',
        acquirerBin: '412345',
        merchantCode: 'EXAMPLE-SHOP',
        deviceChannel: 2,
        messageCategory: '01',
        messageVersion: '2.2.0',
        card: { cardNumber: card },
        merchantName: 'Example Shop',
        purchase: { date: now.slice(0, 10) + ' ' + now.slice(11, 19), amount: 49.99, currencyCode: 'EUR' },
      };
      const r = await callSandbox('POST', '/authentication/brw', lookup);
      sendJSON(res, r.status, r.status === 200 ? r.body : { error: r.body.error, errorCode: r.body.errorCode });
    },
    // The ACS posts the final CRes here, in the challenge iframe; the
    // page answered tells the checkout page, of the same origin.
    'POST /3ds/notify': async (req, res, body) => {
      const form = new URLSearchParams(body.toString());
      const cres = JSON.parse(Buffer.from(form.get('cres') || '', 'base64url').toString() || '{}');
      cresByID.set(cres.threeDSServerTransID, cres);
      const msg = JSON.stringify({ type: 'example-shop:cres', threeDSServerTransID: cres.threeDSServerTransID, transStatus: cres.transStatus });
      send(res, 200, 'text/html; charset=utf-8', '<!DOCTYPE html><title>challenge done</title><p>Challenge done: ' +
        escapeHTML(cres.transStatus) + '</p><script>parent.postMessage(' + msg.replace(/</g, '\\u003c') +
        ', location.origin);</script>');
    },
    // The sandbox posts each final result here, signed.
    'POST /3ds/result-callback': async (req, res, body) => {
      let ok = verifySignature(signingSecret, req.headers['x-3ds-signature'], body);
      if (!ok) { // the secret may have changed (a key rotation): read it again, once
        await register();
        ok = verifySignature(signingSecret, req.headers['x-3ds-signature'], body);
      }
      if (!ok) { send(res, 401, 'text/plain', 'bad signature'); return; }
      const result = JSON.parse(body);
      callbacks.set(result.threeDsServerTransId, {
        verified: true, transactionStatus: result.transactionStatus, attempt: Number(req.headers['x-3ds-attempt']),
      });
      res.writeHead(204).end();
    },
  };

  // The result of an order: the enquiry (section 4.2), with what the CRes
  // and the callback said.
  async function order(res, id) {
    const r = await callSandbox('POST', '/enquiry/', { threeDsServerTransId: id });
    if (r.status !== 200) { sendJSON(res, r.status, { error: r.body.error, errorCode: r.body.errorCode }); return; }
    sendJSON(res, 200, { ...r.body, cres: cresByID.get(id) || null, callback: callbacks.get(id) || null });
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      const route = routes[req.method + ' ' + url.pathname];
      if (route) { await route(req, res, await readBody(req)); return; }
      if (req.method === 'GET' && url.pathname.startsWith('/api/orders/')) {
        await order(res, decodeURIComponent(url.pathname.slice('/api/orders/'.length)));
        return;
      }
      const file = { '/': 'index.html', '/checkout.js': 'checkout.js' }[url.pathname];
      if (req.method === 'GET' && file) {
        send(res, 200, file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8', fs.readFileSync(path.join(PUBLIC, file)));
        return;
      }
      send(res, 404, 'text/plain', 'not found');
    } catch (e) {
      sendJSON(res, 500, { error: e.message });
    }
  });

  // listen starts serving on port of host, registers the result callback,
  // and resolves to the checkout's URL.
  server.start = async (port = 0, host = '127.0.0.1') => {
    await new Promise((resolve) => server.listen(port, host, resolve));
    publicUrl = 'http://' + host + ':' + server.address().port;
    await register();
    return publicUrl;
  };
  return server;
}

module.exports = { createCheckout, signJWT, verifySignature };

if (require.main === module) {
  const checkout = createCheckout({
    sandboxUrl: process.env.THREEDS_SANDBOX_URL || 'http://localhost:8080',
    clientId: process.env.CHECKOUT_CLIENT_ID || 'example-shop',
    clientSecret: process.env.CHECKOUT_CLIENT_SECRET || 'example-shop-secret-0123456789',
  });
  checkout.start(Number(process.env.PORT || 3000)).then(
    (url) => console.log('Example Shop at ' + url),
    (e) => { console.error(e.message); process.exit(1); },
  );
}
