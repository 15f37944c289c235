// A node:test reporter that writes how long each test file's top-level tests took, as one JSON
// object `{ "<file>": ms }`. `node scripts/run-tests.js --record-durations` runs it beside the
// usual TAP output and merges the shards' objects into test/durations.json, which deals the files
// out to the shards (test/all.test.ts).
export default async function* durationsReporter(source) {
  const durations = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || typeof file !== 'string') continue;
    durations[file] = (durations[file] ?? 0) + (details?.duration_ms ?? 0);
  }
  yield `${JSON.stringify(durations)}\n`;
}
