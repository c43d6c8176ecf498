/** The versioned base path of the HTTP API (docs/spec.md "Versioning" 1); a leaf module every router imports. */
export const API_PREFIX = '/api/fingerprint/v1';
