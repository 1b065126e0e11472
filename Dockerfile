# gridfsd: HTTP gateway and mongofiles-compatible command line for MongoDB GridFS.
#
#   docker build -t gridfsd .
#   docker run -p 8080:8080 -p 9000:9000 -v gridfsd-data:/data gridfsd         # embedded store
#   docker run -p 8080:8080 gridfsd serve --uri "mongodb://db1,db2,db3/files?replicaSet=rs0"
#
# The binary is static (CGO_ENABLED=0: the embedded store's SQLite is pure Go),
# so the final image is distroless/static: no shell, no package manager, and a
# non-root user (uid 65532).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/gridfsd ./cmd/gridfsd \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gridfsd /usr/local/bin/gridfsd
# The embedded store's directory, owned by the non-root user.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# Inside a container the HTTP and S3 APIs listen on every interface, so that
# -p 8080:8080 -p 9000:9000 reach them (they share access control: configure
# tokens before publishing them beyond your machine). The embedded store's
# MongoDB port has no authentication at all, so it stays on the container's
# loopback: `docker exec <container> gridfsd list` reaches it; to use
# mongofiles from the host, opt in with -e GRIDFSD_EMBEDDED_LISTEN=0.0.0.0:27017
# -p 127.0.0.1:27017:27017 (docs/DEPLOYMENT.md).
ENV GRIDFSD_LISTEN=0.0.0.0:8080 \
    GRIDFSD_S3_LISTEN=0.0.0.0:9000 \
    GRIDFSD_DATA_DIR=/data \
    GRIDFSD_EMBEDDED_LISTEN=127.0.0.1:27017 \
    GRIDFSD_LOG_FORMAT=json
VOLUME /data
EXPOSE 8080 9000
ENTRYPOINT ["/usr/local/bin/gridfsd"]
CMD ["serve"]
