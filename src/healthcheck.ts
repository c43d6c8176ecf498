/**
 * The image's health check (Dockerfile HEALTHCHECK): `bun src/healthcheck.ts` exits 0 when the
 * server answers `GET /readyz` with 200, 1 otherwise. It probes the port and address the server
 * listens on, read from the settings as the server reads them (`FPA_PORT` before `PORT`, then
 * 3000): the image's line once read `PORT` alone, so `docker run -e FPA_PORT=8080` was unhealthy
 * for ever while the server served on 8080.
 */
import { loadSettings } from './platform/config/settings';

/** How long the probe waits for an answer (the HEALTHCHECK's own timeout is longer). */
const PROBE_TIMEOUT_MS = 4000;

/** Where the server answers on this machine: every interface (0.0.0.0, ::) is reached at the loopback address. */
function readyUrl(settings: { PORT: number; HOST: string }): string {
  const host = settings.HOST === '0.0.0.0' || settings.HOST === '::' || settings.HOST === '' ? '127.0.0.1' : settings.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${settings.PORT}/readyz`;
}

if (import.meta.main) {
  const ready = await fetch(readyUrl(loadSettings().settings), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
    (response) => response.ok,
    () => false,
  );
  process.exit(ready ? 0 : 1);
}
