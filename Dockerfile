# a2amock container image. `make image` builds the same image without a
# Docker engine (internal/ociimage); keep the two in step.
#
#   docker build -t a2amock .
#   docker run --rm -p 8080:8080 a2amock
#   docker run --rm -p 8080:8080 a2amock serve --behavior never-terminal --control-token s3cret
#   docker run --rm -p 9000:9000 -e A2AMOCK_ADDR=0.0.0.0:9000 a2amock   # another port; the healthcheck follows

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static, so the final stage needs no libc and no shell.
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/a2amock ./cmd/a2amock

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/a2amock /a2amock
USER 65532:65532
EXPOSE 8080
# Exec form: there is no shell in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD ["/a2amock","healthcheck"]
ENTRYPOINT ["/a2amock"]
# 0.0.0.0 only here, inside the container: the binary's default is 127.0.0.1:8080.
# An environment variable, not a CMD flag, so that arguments replacing the
# CMD keep it and the healthcheck (which reads it) follows a changed port.
ENV A2AMOCK_ADDR=0.0.0.0:8080
CMD ["serve"]
