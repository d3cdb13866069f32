// Builds the run viewer into dist/ui, which the bridge serves at /ui/ (`npm run build:ui`; scripts/ensure-deps runs
// it when the sources are newer). Preact through Vite's own JSX transform: no plugin, nothing fetched at run time.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // One small app: no source maps in the package, a warning only if it stops being small.
    sourcemap: false,
    chunkSizeWarningLimit: 200,
  },
  logLevel: 'warn',
});
