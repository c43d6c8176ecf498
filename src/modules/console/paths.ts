/** Where the console is served (the plugin's root, so a host mounting the plugin serves it too). */
export const CONSOLE_PATH = '/console';

/**
 * The path of a one-time sign-in link: the token after `#`, which a browser never sends to the
 * server (nor a proxy's access log) and never puts in a Referer; the page's script reads it.
 */
export const signInPath = (token: string) => `${CONSOLE_PATH}/sign-in#token=${encodeURIComponent(token)}`;
