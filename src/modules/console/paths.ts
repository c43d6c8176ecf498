/** Where the console is served (the plugin's root, so a host mounting the plugin serves it too). */
export const CONSOLE_PATH = '/console';
