// Playwright runs the example's tests in the Chromium of the system
// (CHROMIUM_PATH, /usr/bin/chromium by default): install the packages
// with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1, nothing is downloaded.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 20_000 },
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: process.env.CI ? 2 : undefined,
  reporter: 'list',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      // --no-sandbox: Chromium refuses its sandbox as root (CI containers).
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-quic'],
    },
    trace: 'retain-on-failure',
  },
});
