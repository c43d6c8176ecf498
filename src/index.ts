/**
 * The package's public entry: what an embedding host imports. See src/app/create.ts.
 */
export * from './app/create';
/** For a host serving the plugin on its own app: terminals then reach it by a short server name, or none (HTTP/1.0). */
export { servePathsWhateverTheHost } from './platform/http/routable-url';
