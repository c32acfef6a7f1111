# syntax=docker/dockerfile:1
FROM golang:1.26 AS build
WORKDIR /src
# Dependencies first: this layer is cached until go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /seckill ./cmd/server

# Static binary, no shell, runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /seckill /seckill
EXPOSE 8080
ENTRYPOINT ["/seckill"]
CMD ["serve"]
