// Package e2e holds the end-to-end tests of the sandbox as it ships: they
// build the binary (once per test run), the image from the repository's
// Dockerfile with buildah, or a release with go install and the release
// command; start it from the outside on loopback ports, alone, as replicas
// over a real redis-server or behind a real nginx; and drive it as its
// users do: over HTTP, in headless Chromium, through the commands of the
// docs. The package has no code but its tests.
package e2e
