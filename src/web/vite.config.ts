// Vite config for the workbench. `scripts/build-web.js` builds with it; `npx vite --config
// src/web/vite.config.ts` serves it for development, proxying /api to a running `glassbox serve`
// (GLASSBOX_SERVER, default http://127.0.0.1:4100) so the server's auth cookie and Host checks apply.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 700,
    // Per-plugin timing notes are noise in a build this small.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    proxy: {
      '/api': { target: process.env.GLASSBOX_SERVER ?? 'http://127.0.0.1:4100', changeOrigin: true },
    },
  },
});
