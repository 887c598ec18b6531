# The image of a release, made from the binaries go run ./cmd/release
# built (its dist/image context holds one per TARGETPLATFORM, and the
# LICENSE): the same runtime as the Dockerfile's, which builds the binary
# from source. TestImage checks that the two agree.
FROM scratch
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/threeds-sandbox /threeds-sandbox
COPY LICENSE /LICENSE
LABEL org.opencontainers.image.licenses="Apache-2.0"
USER 65532:65532
ENV THREEDS_ADDR=:8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD ["/threeds-sandbox", "healthcheck"]
ENTRYPOINT ["/threeds-sandbox"]
