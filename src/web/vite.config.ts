// Vite config for the workbench. `scripts/build-web.js` builds with it. For development,
// `GLASSBOX_TOKEN=<token> npx vite --config src/web/vite.config.ts` serves the app with hot reload
// and proxies /api to a `glassbox serve --token <token>` (GLASSBOX_SERVER, default
// http://127.0.0.1:4100), presenting the token and the server's own origin as the server requires.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));
const server = process.env.GLASSBOX_SERVER ?? 'http://127.0.0.1:4100';
const token = process.env.GLASSBOX_TOKEN;
const PROTOCOL_MODULE = /[\\/]src[\\/]protocol[\\/][^\\/]+\.ts$/;

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
    rolldownOptions: {
      // Per-plugin timing notes are noise in a build this small.
      checks: { bundlerTimings: false },
      // protocol/'s modules only define values (schemas, enumerations). Saying so lets the bundle
      // keep the enumerations the workbench uses and drop the zod schemas it does not run, and zod
      // with them (about 100 KB otherwise).
      // Every other module keeps the bundler's own reading (undefined), package.json hints included.
      treeshake: { moduleSideEffects: (id: string) => (PROTOCOL_MODULE.test(id) ? false : undefined) },
    },
  },
  server: {
    proxy: {
      '/api': {
        target: server,
        changeOrigin: true,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        configure: (proxy) => {
          // The server refuses a foreign Origin; through this proxy the page is the server's.
          proxy.on('proxyReq', (request) => {
            if (request.getHeader('origin') !== undefined) request.setHeader('origin', new URL(server).origin);
          });
        },
      },
    },
  },
});
