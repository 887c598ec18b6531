// Package e2e holds the end-to-end tests of the threeds-sandbox binary:
// each test builds the program as it ships (once per test run), starts it
// as processes of their own on loopback ports, alone, as replicas over a
// real redis-server or behind a real nginx, and drives it as its users do:
// over HTTP, in headless Chromium, through the commands of the docs. The
// package holds no code besides its tests.
package e2e
