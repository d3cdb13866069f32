# Agio image: one image for both processes.
#   worker (default): node dist/worker/main.js  - runs agent workflows and their activities
#   bridge:           node dist/bridge/main.js  - HTTP API and event streams (listens on $PORT)
# The build writes the workflow bundle the worker loads (dist/workflow-bundle.js), so the image needs only the
# compiled dist/, the example agents file and production dependencies, not the TypeScript sources.
# Your own agents: mount a file and set AGIO_AGENTS to its path (for the worker and the bridge alike).

##### Build: compile TypeScript to dist/ #####
FROM node:20-bookworm-slim AS build
WORKDIR /app

# Dependencies first, so source edits do not invalidate the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci

# The source directories compiled by tsconfig.build.json ("include"); keep the two lists in step.
COPY tsconfig.json tsconfig.build.json index.ts ./
COPY common ./common
COPY platform ./platform
COPY workflows ./workflows
COPY activities ./activities
COPY stores ./stores
COPY live ./live
COPY config ./config
COPY telemetry ./telemetry
COPY worker ./worker
COPY devkit ./devkit
COPY client ./client
COPY bridge ./bridge
COPY protocols ./protocols
COPY cli ./cli
COPY testing ./testing
# The run viewer's sources: `npm run build` builds it into dist/ui, which the bridge serves at /ui/.
COPY ui ./ui
RUN npm run build

##### Runtime: production dependencies and compiled code only #####
FROM node:20-bookworm-slim AS runtime
WORKDIR /app

# bash, grep and glob run in bubblewrap and use ripgrep (docs/SECURITY.md). The worker's container must allow user
# namespaces (Docker's default seccomp profile refuses them: run it with a profile that allows unshare/clone of
# namespaces); where none can start, those tools refuse to run.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap ripgrep && rm -rf /var/lib/apt/lists/*

# TEMPORAL_ADDRESS    Temporal frontend (host:port); docker-compose.yml sets temporal:7233.
# TEMPORAL_NAMESPACE  Temporal namespace for runs.
# AGIO_TASK_QUEUE     task queue shared by the worker and the bridge.
# PORT, HOST          where the bridge listens (0.0.0.0 so a published port reaches it; bound there, the bridge
#                     does not start without AGIO_TOKENS).
# Also read, with no default here: MONGODB_URI, OPENAI_API_KEY, OPENAI_BASE_URL, AGIO_MODEL (worker)
# and AGIO_TOKENS ("token:tenant,token2:tenant2", bridge; required), AGIO_ALLOWED_HOSTS (bridge: Host names it
# answers to besides loopback names and literal IPs).
ENV NODE_ENV=production \
    TEMPORAL_ADDRESS=localhost:7233 \
    TEMPORAL_NAMESPACE=default \
    AGIO_TASK_QUEUE=agio \
    PORT=8080 \
    HOST=0.0.0.0

# The server side's optional peer dependencies (fastify, MongoDB, NATS, the MCP SDK) are dev dependencies of this
# repository: the image makes them dependencies (tsx and @temporalio/testing stay out) and installs the lock file's
# versions of them with the rest.
COPY package.json package-lock.json ./
RUN node -e "const fs = require('fs'); const p = require('./package.json'); \
      for (const n of Object.keys(p.peerDependenciesMeta)) if (n !== 'tsx' && n !== '@temporalio/testing') { \
        p.dependencies[n] = p.devDependencies[n]; delete p.devDependencies[n]; } \
      fs.writeFileSync('package.json', JSON.stringify(p, null, 2));" \
 && npm ci --omit=dev && npm cache clean --force

COPY --from=build /app/dist ./dist
COPY agents ./agents

# Run as the image's unprivileged "node" user (uid 1000); the code stays root-owned and read-only to it,
# and .agio/ is the one writable directory for local runtime state.
RUN mkdir -p /app/.agio && chown node:node /app/.agio
USER node

EXPOSE 8080
CMD ["node", "dist/worker/main.js"]
