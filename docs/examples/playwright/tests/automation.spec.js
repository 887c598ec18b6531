// The automation API, as a test suite uses it beside the browser: wait
// for the final result, read back what the checkout sent, move the
// token's clock to reach a timeout, start clean. The shop's transactions
// live in its OAuth client's namespace, which the automation fixture reads.
const { test, expect, pay, sent } = require('./fixtures');

test('wait for the final result instead of polling', async ({ page, shop, automation }) => {
  const id = await pay(page, shop, '4000000000009102');
  const final = automation.transaction(id, { wait: 'final' }); // answers once it is final
  await page.frameLocator('#challenge').getByRole('button', { name: 'Pass' }).click();
  const tx = await final;
  expect(tx).toMatchObject({ final: true, status: 'Y', eci: '05' });
  expect(tx.events.map((e) => e.type)).toEqual(expect.arrayContaining(['lookup', 'creq', 'decision', 'cres']));
});

test('read back what the checkout sent', async ({ page, shop, automation }) => {
  // Not a run of 13 to 19 digits: the sandbox masks one that passes the
  // Luhn check as a card number wherever it stands.
  const order = 'order-' + Date.now().toString(36);
  const id = await pay(page, shop, '4000000000009409', order);
  await expect(page.locator('#result')).toHaveAttribute('data-status', 'Y');
  const tx = await automation.transaction(id);
  expect(sent(tx, 'lookup', 'browserInfo.userAgent')).toBe(await page.evaluate(() => navigator.userAgent));
  expect(sent(tx, 'lookup', 'challengeWindowSize')).toBe(2);
  expect(sent(tx, 'lookup', 'externalReferenceId')).toBe(order);
  const [listed] = await automation.transactions({ externalReferenceId: order });
  expect(listed).toMatchObject({ threeDsServerTransId: id, status: 'Y', cardLast4: '9409' });
});

test('move the clock to reach the challenge timeout', async ({ page, shop, automation }) => {
  const id = await pay(page, shop, '4000000000009102');
  await expect(page.frameLocator('#challenge').getByRole('button', { name: 'Pass' })).toBeVisible(); // opened
  expect((await automation.advanceClock('16m')).status).toBe(200); // past the 15 minutes of an opened challenge
  const tx = await automation.transaction(id, { wait: 'final' });
  expect(tx).toMatchObject({ final: true, status: 'N', statusReason: '14', challengeCancel: '04' });
});

test('start clean', async ({ page, shop, automation }) => {
  const id = await pay(page, shop, '4000000000009409');
  await expect(page.locator('#result')).toHaveAttribute('data-status', 'Y');
  expect(await automation.transactions()).toHaveLength(1);
  expect((await automation.forget()).status).toBe(204);
  expect(await automation.transactions()).toHaveLength(0);
  const gone = await page.request.get(shop.url + '/api/orders/' + id); // the enquiry finds it no more
  expect(gone.status()).toBe(404);
});
