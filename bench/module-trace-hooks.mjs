// The hook thread's half of module-trace.mjs. Node runs hooks off the main thread, so the list is
// appended synchronously to a file rather than sent back.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function load(url, context, nextLoad) {
  if (file) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
