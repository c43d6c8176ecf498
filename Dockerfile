# Multi-stage build. Dependencies are installed from the npm lockfile (the project's only one)
# with `npm ci`, which fails rather than drift from it; the runtime stage is the official Bun
# image, runs as a non-root user, keeps the database under /app/data and checks /readyz.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; Bun itself comes from the runtime image, not from npm.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM oven/bun:1.4.5 AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    FPA_DATABASE_URL=file:/app/data/fpa.db
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
RUN mkdir -p /app/data && chown -R bun:bun /app/data && chmod 700 /app/data
USER bun
EXPOSE 3000
VOLUME ["/app/data"]
# The port and address the server listens on, read as the server reads them (FPA_PORT before PORT).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD bun src/healthcheck.ts
# Configuration comes from FPA_* environment variables (see README); the server refuses to
# start without FPA_TEMPLATE_ENCRYPTION_KEYS (administrator JWTs are optional).
CMD ["bun", "src/server.ts"]
