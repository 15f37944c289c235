// A node:test reporter that writes how long each test file took, as one JSON object
// `{ "<file relative to test/>": ms }`. test/all.test.ts runs each file inside one top-level suite
// named after it, so that suite's duration is the file's. `node scripts/run-tests.js
// --record-durations` runs this beside the usual TAP output and merges the processes' objects
// into test/durations.json, which orders the shared queue of files (longest first).
export default async function* durationsReporter(source) {
  const durations = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, details } = event.data;
    if (nesting !== 0 || typeof name !== 'string' || !name.endsWith('.test.ts')) continue;
    durations[name] = (durations[name] ?? 0) + (details?.duration_ms ?? 0);
  }
  yield `${JSON.stringify(durations)}\n`;
}
