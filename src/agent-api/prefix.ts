/**
 * The API's base path; the same value as index.ts's API_PREFIX, repeated here because index.ts
 * imports this feature (an import back would be circular). The OpenAPI test checks the served
 * routes against the documented ones, so the two cannot drift apart unnoticed.
 */
export const API_BASE = '/api/fingerprint/v1';
