import { defineConfig } from 'drizzle-kit';

// Only used by `bun run db:generate` to write SQL migrations into ./migrations.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/app/schema.ts',
  out: './migrations',
});
