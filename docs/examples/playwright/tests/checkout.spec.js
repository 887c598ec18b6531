// The example checkout in Chromium against the sandbox: the device data
// capture in its hidden iframe, the lookup, and the challenge in its
// iframe, reached with frameLocator; the result as the merchant's server
// learns it from the enquiry and from the signed result callback.
const { test, expect, pay } = require('./fixtures');

test('a frictionless payment after the device data capture', async ({ page, shop }) => {
  const collect = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/V2/ddcCollect'));
  await pay(page, shop, '4000000000009409'); // its 3DS Method completes in 1s
  expect((await collect).frame().name()).toBe('ddc-frame'); // posted by the hidden iframe
  await expect(page.locator('#capture')).toHaveAttribute('data-status', 'completed');
  await expect(page.locator('#capture')).toHaveAttribute('data-comp-ind', 'Y');
  await expect(page.locator('#lookup')).toHaveAttribute('data-status', 'Y');
  await expect(page.locator('#result')).toHaveAttribute('data-status', 'Y');
  await expect(page.locator('#callback')).toHaveAttribute('data-verified', 'true');
  await expect(page.locator('#challenge')).toBeHidden();
});

// The challenge page lives in the #challenge iframe, on the sandbox's
// origin: frameLocator reaches into it.
const challenge = (page) => page.frameLocator('#challenge');

for (const { button, status, cancel } of [
  { button: 'Pass', status: 'Y' },
  { button: 'Fail', status: 'N' },
  { button: 'Cancel', status: 'N', cancel: '01' },
]) {
  test(`a challenge the cardholder ends with ${button}`, async ({ page, shop }) => {
    await pay(page, shop, '4000000000009102');
    await expect(page.locator('#lookup')).toHaveAttribute('data-status', 'C');
    await challenge(page).getByRole('button', { name: button }).click();
    await expect(page.locator('#result')).toHaveAttribute('data-status', status);
    if (cancel) {
      await expect(page.locator('#result')).toHaveAttribute('data-cancel', cancel);
    }
    await expect(page.locator('#lookup')).toHaveAttribute('data-cres', status);
    await expect(page.locator('#callback')).toHaveAttribute('data-verified', 'true');
  });
}

test('a wrong one-time code, then the right one', async ({ page, shop }) => {
  await pay(page, shop, '4000000000009102'); // 1234 passes
  const acs = challenge(page);
  await acs.getByLabel('Enter the one-time code').fill('9999');
  await acs.getByRole('button', { name: 'Submit' }).click();
  await expect(acs.getByRole('alert')).toBeVisible(); // the code is refused, attempts are left
  await expect(page.locator('#result')).not.toHaveAttribute('data-status');
  await acs.getByLabel('Enter the one-time code').fill('1234');
  await acs.getByRole('button', { name: 'Submit' }).click();
  await expect(page.locator('#result')).toHaveAttribute('data-status', 'Y');
});

test('the server refuses a result callback without a valid signature', async ({ request, shop }) => {
  const forged = await request.post(shop.url + '/3ds/result-callback', {
    data: { threeDsServerTransId: '00000000-0000-4000-8000-000000000000', transactionStatus: 'Y' },
    headers: { 'X-3DS-Signature': 't=' + Math.floor(Date.now() / 1000) + ',v1=' + '0'.repeat(64) },
  });
  expect(forged.status()).toBe(401);
});
