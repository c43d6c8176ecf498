/** The versioned base path of the HTTP API (docs/spec.md "Versioning" 1); a leaf module every router imports. */
export const API_PREFIX = '/api/fingerprint/v1';
/** The API's path of every version: the plugin answers whatever is asked under it (a 404 with the error body at the least). */
export const API_NAMESPACE = API_PREFIX.slice(0, API_PREFIX.lastIndexOf('/'));
