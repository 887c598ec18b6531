// The fixtures of the example: the sandbox threeds-sandbox exec started
// (THREEDS_SANDBOX_URL), a checkout of the example shop for each test
// with an OAuth client of its own, and the automation API of that
// client's namespace.
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const path = require('node:path');
const base = require('@playwright/test');

// The checkout the tests drive: ../checkout beside this folder, or
// CHECKOUT_DIR. Its Node server runs in the test's process; with
// CHECKOUT_COMMAND (e.g. "python3 python/server.py", run in the checkout's
// folder) another server of it runs as a process of its own.
const checkoutDir = process.env.CHECKOUT_DIR || path.resolve(__dirname, '..', '..', 'checkout');
const { createCheckout } = require(path.join(checkoutDir, 'node', 'server.js'));

// startServer starts the checkout's server for one OAuth client and
// returns its URL and how to stop it.
async function startServer(sandbox, clientId, clientSecret) {
  const command = (process.env.CHECKOUT_COMMAND || '').trim();
  if (!command) {
    const checkout = createCheckout({ sandboxUrl: sandbox, clientId, clientSecret });
    const url = await checkout.start();
    return { url, stop: () => { checkout.closeAllConnections(); return new Promise((r) => checkout.close(r)); } };
  }
  const [bin, ...args] = command.split(/\s+/);
  const child = spawn(bin, args, {
    cwd: checkoutDir,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env, PORT: '0', CHECKOUT_CLIENT_ID: clientId, CHECKOUT_CLIENT_SECRET: clientSecret,
      CHECKOUT_PUBLIC_DIR: path.join(checkoutDir, 'public'),
    },
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
      const m = /Example Shop at (\S+)/.exec(out);
      if (m) { resolve(m[1]); }
    });
    child.on('exit', (code) => reject(new Error(command + ' exited with ' + code + ' before it served: ' + out)));
  });
  const exited = new Promise((r) => child.on('exit', r));
  return { url, stop: () => { child.kill('SIGTERM'); return exited; } };
}

// sandboxURL is the sandbox's base URL; without it the tests fail (they
// never skip): run them under threeds-sandbox exec.
function sandboxURL() {
  const url = process.env.THREEDS_SANDBOX_URL;
  if (!url) {
    throw new Error('THREEDS_SANDBOX_URL is not set: run the tests under the sandbox, threeds-sandbox exec -- npm test');
  }
  return url.replace(/\/+$/, '');
}

// Automation is the automation API (GET/DELETE /admin/transactions,
// /admin/clock) of one namespace: here the shop's OAuth client's, where
// its checkout's transactions live.
class Automation {
  constructor(request, sandbox, clientId, clientSecret) {
    Object.assign(this, { request, sandbox, clientId, clientSecret });
  }

  // token is an access token of the client, from the token endpoint the
  // discovery document names.
  async token() {
    if (!this.accessToken) {
      const discovery = await this.request.get(this.sandbox + '/.well-known/openid-configuration');
      base.expect(discovery.status()).toBe(200);
      const r = await this.request.post((await discovery.json()).token_endpoint, {
        form: { grant_type: 'client_credentials', client_id: this.clientId, client_secret: this.clientSecret },
      });
      base.expect(r.status(), await r.text()).toBe(200);
      this.accessToken = (await r.json()).access_token;
    }
    return this.accessToken;
  }

  async call(method, route, data) {
    const r = await this.request.fetch(this.sandbox + route, {
      method, data, headers: { Authorization: 'Bearer ' + await this.token() }, timeout: 90_000,
    });
    return { status: r.status(), body: r.status() === 204 ? null : await r.json() };
  }

  // transaction is one transaction with its events; wait: 'final' answers
  // once it is final (or after timeout, with final false).
  async transaction(id, { wait, timeout = '30s' } = {}) {
    const q = wait ? '?wait=' + wait + '&timeout=' + timeout : '';
    const r = await this.call('GET', '/admin/transactions/' + encodeURIComponent(id) + q);
    base.expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  }

  async transactions(query = {}) {
    const r = await this.call('GET', '/admin/transactions?' + new URLSearchParams(query));
    base.expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.transactions;
  }

  advanceClock(by) { return this.call('POST', '/admin/clock', { advance: by }); }
  resetClock() { return this.call('DELETE', '/admin/clock'); }
  forget() { return this.call('DELETE', '/admin/transactions'); }
}

// sent is a field of the request the sandbox received in the transaction's
// first event of type (e.g. 'lookup'), by its dotted path
// (e.g. 'browserInfo.userAgent').
function sent(tx, type, field) {
  const ev = tx.events.find((e) => e.type === type && e.request);
  if (!ev) { throw new Error('no ' + type + ' event with a request in ' + JSON.stringify(tx.events.map((e) => e.type))); }
  return field.split('.').reduce((v, k) => (v == null ? undefined : v[k]), ev.request);
}

const test = base.test.extend({
  sandbox: async ({}, use) => { await use(sandboxURL()); },

  // shop is the example checkout, serving on a free port for this test
  // alone, as an OAuth client of its own: its transactions are a
  // namespace no other test sees.
  shop: async ({ sandbox }, use) => {
    const clientId = 'shop-' + crypto.randomBytes(6).toString('hex');
    const clientSecret = crypto.randomBytes(24).toString('hex');
    const server = await startServer(sandbox, clientId, clientSecret);
    await use({ url: server.url, clientId, clientSecret });
    await server.stop();
  },

  automation: async ({ request, sandbox, shop }, use) => {
    const a = new Automation(request, sandbox, shop.clientId, shop.clientSecret);
    await use(a);
    await a.resetClock();
  },
});

// pay opens the checkout and pays with card; it returns the lookup's
// threeDsServerTransId once the lookup has answered.
async function pay(page, shop, card, order) {
  await page.goto(shop.url);
  await page.locator('#card').fill(card);
  if (order) { await page.locator('#order').fill(order); }
  await page.locator('#pay').click();
  const lookup = page.locator('#lookup[data-trans-id]');
  await lookup.waitFor();
  return lookup.getAttribute('data-trans-id');
}

module.exports = { test, expect: base.expect, pay, sent };
