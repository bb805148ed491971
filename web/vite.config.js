import { defineConfig } from 'vite';
// Everything is bundled into a few files under dist/, embedded into the traza binary.
export default defineConfig({
  base: '/',
  build: { outDir: 'dist', assetsInlineLimit: 0, sourcemap: false, modulePreload: { polyfill: false } },
});
