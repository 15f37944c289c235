// Preloaded into benchmark children: write peak RSS (KiB) where the parent can read it.
const file = process.env.GLASSBOX_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      require('node:fs').writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {}
  });
}
