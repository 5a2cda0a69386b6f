import { defineConfig } from 'vite';

/** The dashboard: index.html is served at the dashboard's pages, hashed assets under /assets/dashboard/. */
export default defineConfig({
  base: '/assets/dashboard/',
  esbuild: { jsx: 'automatic' },
  // The GraphQL IDE's editor (Monaco) runs its language services in module workers.
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    assetsDir: '',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
    rollupOptions: {
      onwarn(warning, warn) {
        // framer-motion (a GraphiQL dependency) marks its modules "use client", which means nothing in a bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
