# syntax=docker/dockerfile:1
# One image for every Stagecraft process; compose and Kubernetes choose the app by its command.
# The base is an argument so a machine without a registry can build on a base assembled locally
# (tools/containers/build-images.sh); it must be Debian bookworm with Node 24, npm and uid 1000.
ARG BASE_IMAGE=node:24-bookworm-slim

# Only the package manifests, so the dependency layer is reused until a manifest changes.
FROM ${BASE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json -delete \
 && find . -type d -empty -delete

FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /src ./
# `npm install`, not `npm ci`: the lockfile lists optional platform packages the registry does not serve.
# A network that re-signs TLS passes its CA as the optional build secret `ca-certificates` (npm asks
# the registry in install and in prune); the image itself keeps only the base's trust. The LangGraph
# anchor of the benchmarks (tools/bench, not in the image) needs a native SQLite module the base cannot
# compile, so its packages are left out here.
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=ca-certificates,required=false \
    npm pkg delete "devDependencies.@langchain/langgraph" "devDependencies.@langchain/langgraph-checkpoint-sqlite" \
      "devDependencies.@langchain/core" \
 && NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm install --no-audit --no-fund

FROM deps AS build
COPY . .
# tsconfig.image.json is the workspace build without tools/ (benchmarks), which the context leaves out;
# the web console's static files are bundled (esbuild, a dev dependency) before the prune.
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=ca-certificates,required=false \
    npx tsc -b tsconfig.image.json \
 && node tools/scripts/build-console.cjs \
 && NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates npm prune --omit=dev --no-audit --no-fund

FROM ${BASE_IMAGE} AS runtime
ENV NODE_ENV=production \
    STAGECRAFT_HEALTH_PORT=8080 \
    STAGECRAFT_HEALTH_HOST=0.0.0.0 \
    STAGECRAFT_STORE=sqlite:/data/events.db
WORKDIR /app
# bubblewrap is run_command's sandbox (docs/security.md); without it the command tool is refused.
# Before the COPY, so a code change does not repeat the install.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
# Everything .dockerignore lets in, built and pruned; owned by root, so the service user cannot change it.
COPY --from=build /app ./
# /data holds the embedded SQLite log; /workspace is where a project is mounted for the tools.
RUN mkdir -p /data /workspace && chown 1000:1000 /data /workspace
# Numeric, so Kubernetes can verify runAsNonRoot (uid 1000 is the image's `node` user).
USER 1000:1000
EXPOSE 8080
# Embedded mode by default; distributed deployments run `node apps/<name>/dist/main.js`.
CMD ["node", "apps/cli/bin/stagecraft.cjs", "serve"]
