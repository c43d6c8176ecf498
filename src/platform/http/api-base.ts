/** The API's base path, under the name the agent and docs modules use. */
export { API_PREFIX as API_BASE } from './api-prefix';
