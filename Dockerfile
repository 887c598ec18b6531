# syntax=docker/dockerfile:1
# Build: docker build -t ghcr.io/threeds-sandbox/threeds-sandbox .
# Run:   docker run --rm -p 8080:8080 ghcr.io/threeds-sandbox/threeds-sandbox

# The base is named in full: podman and buildah refuse a short name
# without a registries configuration.
FROM docker.io/library/golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/threeds-sandbox ./cmd/threeds-sandbox

# The binary embeds its scenarios, templates and docs: nothing else is
# needed to run it. The licence travels with it.
FROM scratch
COPY --from=build /out/threeds-sandbox /threeds-sandbox
COPY LICENSE /LICENSE
LABEL org.opencontainers.image.licenses="Apache-2.0"
USER 65532:65532
ENV THREEDS_ADDR=:8080
EXPOSE 8080
# The binary probes itself, so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD ["/threeds-sandbox", "healthcheck"]
ENTRYPOINT ["/threeds-sandbox"]
