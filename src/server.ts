/** `bun run start`: the standalone server (src/app/server.ts). */
import { main } from './app/server';

if (import.meta.main) await main();
