import { defineConfig } from 'drizzle-kit';

// Only used by `bun run db:generate` to write SQL migrations into ./migrations from every
// module's tables.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/modules/*/tables.ts',
  out: './migrations',
});
