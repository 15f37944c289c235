// The model flags `exec` and `serve` share, declared once.

import { type Command, Option } from 'commander';

export function addModelOptions(command: Command): Command {
  return (
    command
      .addOption(new Option('-m, --model <model>', 'model name').env('GLASSBOX_MODEL'))
      // Not an .env() option: the variable depends on the wire API (OPENAI_BASE_URL or ANTHROPIC_BASE_URL, run-config.ts).
      .option(
        '--base-url <url>',
        'model endpoint, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL, or $ANTHROPIC_BASE_URL with --wire-api anthropic)',
      )
      // The names are written out, not read from model/dialects.ts: --help must not load the gateways (test/architecture/wire-name-literals.test.ts checks the list).
      .addOption(new Option('--wire-api <api>', 'wire API: chat, responses or anthropic').env('GLASSBOX_WIRE_API'))
      .option('-C, --cd <dir>', 'project root (default: current directory)')
      .addOption(new Option('--home <dir>', 'Glassbox home for sessions and config (default ~/.glassbox)').env('GLASSBOX_HOME'))
      .option('--compact-at <tokens|percent%>', 'compact the context at this many tokens or this share of the window')
      .option('--context-window <tokens>', "override the model's context window")
      .addOption(
        new Option(
          '--stream-idle-timeout <seconds>',
          'give up on a model stream silent this long once its answer started (default 120; the wait for its first event is at least 300)',
        ).env('GLASSBOX_STREAM_IDLE_TIMEOUT'),
      )
      .addOption(
        new Option(
          '--reasoning-effort <effort>',
          "how hard a reasoning model thinks: minimal, low, medium or high (default: the provider's)",
        ).env('GLASSBOX_REASONING_EFFORT'),
      )
      .option(
        '--max-output-tokens <tokens>',
        "cap each model answer at this many tokens (default: modelSettings.maxOutputTokens in config.json, else the provider's; Anthropic 32000)",
      )
      .option(
        '--temperature <t>',
        'sampling temperature, 0 to 2 (default: modelSettings.temperature in config.json, else not sent; the anthropic wire takes none)',
      )
      .option('--demo', 'use the built-in offline demo model')
  );
}
