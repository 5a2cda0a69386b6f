import { defineConfig } from 'vite';

/** The room page: index.html is served at /m/<code>, hashed assets under /assets/room/. */
export default defineConfig({
  base: '/assets/room/',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, target: 'es2022' },
});
