#
# signing-bridge: the service image (the last stage, `runtime`, built by default) and the
# platform simulator's image (target `simulator`, dev and demo only).
#   docker build -t signing-bridge:0.3.0 .
#   docker build --target simulator -t signing-bridge-simulator:0.3.0 .
#   docker run --rm --env-file bridge.env -p 8080:8080 signing-bridge:0.3.0
#   docker run --rm -p 9300:9300 signing-bridge-simulator:0.3.0
# See docs/deployment.md. No `# syntax=` line: the builder's own Dockerfile frontend reads this
# file, so building needs no registry but the one holding the base image.

# One base for every stage, so the code is compiled by the Node that runs it. The tag matches
# .nvmrc (24), package.json engines (>=24.11.0) and the `node` devDependency the npm scripts run
# on (24.21.0); a registry-aware bot (Renovate) should add the digest
# (`node:24.21.0-bookworm-slim@sha256:...`), which cannot be looked up from here.
FROM node:24.21.0-bookworm-slim AS base
WORKDIR /app
# tini as PID 1 rather than node: the kernel drops signals that PID 1 has no handler for, so a
# SIGTERM arriving before the service installs its handler (or sent to the simulator) would be
# ignored until the kubelet's SIGKILL. tini forwards it to node, which shuts down gracefully
# (docs/design.md, "Shutdown"), and reaps zombies. Pinned to Debian bookworm's build (what
# `apt-cache policy tini` lists there); bump it with the base image.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
  && rm -rf /var/lib/apt/lists/*

FROM base AS build
COPY package.json package-lock.json ./
# No dependency needs its install script to compile (package.json's allowScripts denies them),
# and compiling needs no patched dependency.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/image/service-files.mjs ./scripts/image/
# service/: the modules `run` reaches, without the simulator or the development tools.
RUN npm run build && node scripts/image/service-files.mjs dist service

# The service's dependencies: no development ones, and not the optional pdfjs-dist, which only
# the simulator reads PDFs with.
FROM base AS production-dependencies
COPY package.json package-lock.json ./
COPY patches ./patches
# No production dependency has an install script. The project's declared patches of its pinned
# dependencies (patches/, docs/deployment.md) are applied by patch-package, a development
# dependency, which is pruned with the others once it has done so.
RUN npm ci --omit=optional --ignore-scripts \
  && npx patch-package --error-on-fail \
  && npm prune --omit=dev --omit=optional

# The runtime image's software bill of materials, /app/sbom.cdx.json (CycloneDX JSON; see
# docs/deployment.md, "Supply chain"): npm's description of the tree production-dependencies
# installed, corrected by scripts/image/sbom.mjs (valid URLs, the image's name, the declared
# patches). Not `npm sbom --omit=dev`: it also drops a production package that a development one
# uses too (npm/cli#7909; undici and five more here), so package.json's development and optional
# lists go instead, and what is installed is what it describes.
FROM production-dependencies AS sbom
COPY scripts/image/sbom.mjs ./scripts/image/
RUN npm pkg delete devDependencies optionalDependencies \
  && npm sbom --sbom-format cyclonedx --sbom-type application > npm-sbom.json \
  && node scripts/image/sbom.mjs npm-sbom.json > sbom.cdx.json

# The platform simulator (`signing-bridge simulator`): all of dist/, pdfjs-dist and the demo
# fixtures (app token demo-app-token). Never for production.
FROM base AS simulator
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --ignore-scripts \
  && npx patch-package --error-on-fail \
  && npm prune --omit=dev \
  && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY fixtures ./fixtures
USER 1000:1000
# Its default port; the chart passes --port 8080.
EXPOSE 9300
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli/main.js"]
# Its default host is 127.0.0.1, unreachable from outside the container.
CMD ["simulator", "--host", "0.0.0.0"]

# The service: the compiled code `run` needs, its production dependencies, their bill of
# materials and the licence.
FROM base AS runtime
ENV NODE_ENV=production
# A V8 heap limit: without one, V8 lets garbage pile up under load (230-300 MB resident in the
# benchmark); with it, 150-180 MB for the same throughput. The live heap is a few tens of MB
# plus the ledger entries of the owned partitions' bizIds: raise the limit with the pod's memory
# for very large ledgers (docs/deployment.md). The young generation's semi-spaces are fixed at
# 16 MB (what Node 20 grew them to by itself): left to itself, Node 24 sizes them by other rules,
# and under the benchmark the bridge then collected five times as often, at 2.0-2.6 CPU s per
# 1,000 commands instead of 0.84-0.87 (bench/README.md). `npm run bench` runs the bridge with this very line
# (bench/support/image-node-options.ts).
ENV NODE_OPTIONS="--max-old-space-size=160 --max-semi-space-size=16"
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=sbom /app/sbom.cdx.json ./
COPY --from=build /app/service ./dist
COPY LICENSE ./
# The files stay root-owned (read-only to the service). Numeric uid:gid of the base image's
# `node` user, because Kubernetes' runAsNonRoot can verify only a numeric user.
USER 1000:1000
# HTTP_PORT: /healthz, /readyz and /metrics.
EXPOSE 8080
# No HEALTHCHECK: Kubernetes ignores it (the chart's probes do the job), and the slim image has
# no curl to run one with.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli/main.js"]
CMD ["run"]
