/** Credentials inside URLs (a database URL's `user:password@`, `?authToken=`), hidden wherever a URL is shown. */

/** Query parameters that carry credentials (libSQL takes `?authToken=`). */
const SECRET_PARAMETER = /([?&][^=&#]*(?:token|secret|password|passwd|pwd|key|auth)[^=&#]*=)[^&#]*/gi;

/** A URL with its credentials hidden: `user:password@` and the values of credential parameters become `***`. */
export function hideUrlSecrets(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@').replace(SECRET_PARAMETER, '$1***');
}
