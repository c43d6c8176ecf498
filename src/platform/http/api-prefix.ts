/** The versioned base path of the HTTP API (SPEC "Versioning" 1); a leaf module every router imports. */
export const API_PREFIX = '/api/fingerprint/v1';
