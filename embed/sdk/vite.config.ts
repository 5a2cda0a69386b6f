import { defineConfig } from 'vite';

/**
 * Two library builds of one source: `vite build` writes the ES module `dist/index.js`; `vite build --mode script-tag`
 * adds the script-tag build `dist/svc-embed.js` (global `SvcEmbed`), which the service serves at `/embed/svc-embed.js`.
 */
export default defineConfig(({ mode }) => {
  const scriptTag = mode === 'script-tag';
  return {
    build: {
      outDir: 'dist',
      emptyOutDir: !scriptTag,
      sourcemap: true,
      target: 'es2022',
      minify: scriptTag ? 'esbuild' : false,
      lib: scriptTag
        ? { entry: 'src/script-tag.ts', name: 'SvcEmbed', formats: ['iife'], fileName: () => 'svc-embed.js' }
        : { entry: 'src/index.ts', formats: ['es'], fileName: () => 'index.js' },
    },
  };
});
