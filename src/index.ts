/**
 * The package's public entry: what an embedding host imports. See src/app/create.ts.
 */
export * from './app/create';
