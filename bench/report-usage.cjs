// Preloaded into benchmark children: write peak RSS (KiB) and CPU time (µs, user + system, every
// thread of the process: V8's background compilers and GC helpers included) where the parent can
// read them.
const file = process.env.GLASSBOX_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    try {
      const cpu = process.cpuUsage();
      require('node:fs').writeFileSync(file, `${process.resourceUsage().maxRSS} ${cpu.user + cpu.system}`);
    } catch {}
  });
}
