# gridfsd: HTTP gateway and mongofiles-compatible command line for MongoDB GridFS.
#
#   docker build -t gridfsd .
#   docker run -p 8080:8080 -v gridfsd-data:/data gridfsd                       # embedded store
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
# Inside a container the gateway listens on every interface; the embedded
# store too, so that mongofiles or mongosh in a linked container (or through
# -p 27017:27017) reach the same data. Neither has authentication: publish
# only what you mean to.
ENV GRIDFSD_LISTEN=0.0.0.0:8080 \
    GRIDFSD_DATA_DIR=/data \
    GRIDFSD_EMBEDDED_LISTEN=0.0.0.0:27017 \
    GRIDFSD_LOG_FORMAT=json
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gridfsd"]
CMD ["serve"]
