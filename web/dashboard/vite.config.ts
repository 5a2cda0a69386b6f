import { defineConfig } from 'vite';

/** The dashboard: index.html is served at the dashboard's pages, hashed assets under /assets/dashboard/. */
export default defineConfig({
  base: '/assets/dashboard/',
  esbuild: { jsx: 'automatic' },
  build: { outDir: 'dist', assetsDir: '', emptyOutDir: true, sourcemap: false, target: 'es2022', chunkSizeWarningLimit: 4000 },
});
