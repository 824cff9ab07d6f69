# Studio Service: the API server and the graphile-worker runner (one image, two commands).
# Production needs an external PostgreSQL: set DATABASE_URL (without it the service would
# start an embedded PostgreSQL inside the container, which is for development only).
# NODE_ENV=production (below): no demo business, and the start needs SESSION_SECRET and
# WEBHOOK_SECRET_KEY (or their *_FILE forms) from the environment (docs/security.md).
FROM node:24-bookworm-slim

ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data

WORKDIR /app

# Dependencies first, so source edits do not invalidate this layer.
# --ignore-scripts: the only install script in the lockfile is the `node` package's, which
# downloads a second Node 24 binary for `npm run` on development machines; the image already
# has Node 24, so its shim is removed and `node` is the image's own.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts \
 && rm -f node_modules/.bin/node \
 && npm cache clean --force

# Node runs the TypeScript sources directly (type stripping): no build step.
# What is left out (tests, benchmarks, local data) is listed in .dockerignore.
COPY . .

# DATA_DIR holds local state (demo tokens, report files); the non-root user must own it.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]

USER node
EXPOSE 3000

# Server and worker in one process; docker-compose.yml runs them as separate services.
# V8 heap sizing for the API's allocation rate (docs/decisions.md): --max-semi-space-size=16
# (V8 would grow each young-generation semi-space to 64 MiB; 16 keeps the API process within
# 256 MiB resident under load, for a few per cent more GC time) and --heap-growing-percent=50 (the old generation grows to 1.5 times its live size
# before a full GC instead of up to four times: well over 100 MiB less resident; cheap once
# per-request objects no longer reach the old generation, see the next flag), and
# --no-allocation-site-pretenuring (per-request objects stay in the young generation instead of
# being allocated straight into the old one: about a third less server CPU in GC).
# They are on the command line: Node refuses --heap-growing-percent in NODE_OPTIONS.
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "--no-allocation-site-pretenuring", "src/main.ts"]
