import { defineConfig } from 'drizzle-kit';

// Only used by `bun run db:generate` to write SQL migrations into ./migrations.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './migrations',
});
