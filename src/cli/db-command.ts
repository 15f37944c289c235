// `glassbox db migrate`: bring a team's PostgreSQL schema up to this glassbox's version, explicitly
// (an upgrade step in a deploy script, before the new servers start). Every process that opens the
// database migrates it too; both take the same advisory lock, so any number of them at once apply
// each migration exactly once, and a schema newer than this glassbox is refused, exit 2.

import type { Command } from 'commander';
import { resolveHome } from './glassbox-home.js';
import { databaseUrlOption, forgetDatabaseUrlVariable, resolveDatabaseUrl } from './session-store-option.js';
import { EXIT, UsageError } from './usage-error.js';

interface DbMigrateOptions {
  databaseUrl?: string;
  home?: string;
}

export function registerDbCommand(program: Command): Command {
  const db = program.command('db').description("the team server's PostgreSQL database (docs/team-server.md)");
  db.command('migrate')
    .description('create or upgrade the schema (also done by every process that opens the database)')
    .option('--home <dir>', 'Glassbox home whose config.json may name the database (default ~/.glassbox)')
    .addOption(databaseUrlOption())
    .action(async (options: DbMigrateOptions) => {
      process.exitCode = await dbMigrate(options, (text) => process.stdout.write(text));
    });
  return db;
}

async function dbMigrate(options: DbMigrateOptions, out: (text: string) => void): Promise<number> {
  const url = resolveDatabaseUrl(options.databaseUrl, resolveHome(options.home));
  forgetDatabaseUrlVariable();
  if (url === undefined)
    throw new UsageError('db migrate needs --database-url (or GLASSBOX_DATABASE_URL, or "database.url" in config.json)');
  const { migrateDatabase } = await import('./session-store-option.js');
  const { from, to, location } = await migrateDatabase(url);
  out(
    from === to
      ? `${location}: schema is at version ${to}; nothing to do\n`
      : `${location}: schema migrated from version ${from} to ${to}\n`,
  );
  return EXIT.ok;
}
