// Package e2e holds the end-to-end tests of the sandbox as it ships: they
// start the built binary or the image from the outside, as a user or a
// CI job would, and talk to it over HTTP only. The image is built from
// the repository's Dockerfile with buildah; the binary with go build, go
// install and the release configuration. The package has no code but its
// tests.
package e2e
