// Preloaded with `node --import` by the extensions bench: registers a module hook that appends
// the URL of every module Node loads to $GLASSBOX_BENCH_MODULES_FILE, so the bench can say which
// packages a command actually loaded (not which ones it could have).
import { register } from 'node:module';

register(new URL('./module-trace-hooks.mjs', import.meta.url), {
  data: { file: process.env.GLASSBOX_BENCH_MODULES_FILE },
});
