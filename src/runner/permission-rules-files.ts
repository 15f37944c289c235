// Permission rules from both config files. The user's rules all apply. A project's deny and ask
// rules apply too (they only ever make a call need more), but its allow rules apply only once the
// user pinned that project's rules — `projectPermissionRules` in the user's file maps the
// project's real path to the fingerprint of its rules — because a repository must never approve
// its own commands. Any change to the project's rules unpins them again, with a notice saying so.

import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type ConfigRule, PermissionRuleError, readPermissionRulesSection } from '../permissions/index.js';
import { RefusedFileError, projectPin, readProjectFile } from '../workspace/index.js';
import type { StartupWarning } from './run-extensions.js';

export interface LoadedPermissionRules {
  /** The user's rules, then the project's that apply, each file in its own order. */
  rules: ConfigRule[];
  warnings: StartupWarning[];
}

function pinnedFingerprint(userText: string | null, userPath: string, project: string): string | undefined {
  if (userText === null) return undefined;
  const config = JSON.parse(userText) as Record<string, unknown>;
  const pin = projectPin(config?.projectPermissionRules, project);
  if (pin === 'invalid')
    throw new PermissionRuleError(`${userPath}: projectPermissionRules must map absolute project directories to "sha256:…" fingerprints`);
  return pin;
}

/** Reads both files; a malformed rule rejects with a `PermissionRuleError` (exit 2) naming file, line and rule. */
export async function readPermissionRules(home: string, root: string): Promise<LoadedPermissionRules> {
  const userPath = join(home, 'config.json');
  const projectPath = join(root, '.glassbox', 'config.json');
  const warnings: StartupWarning[] = [];
  const [userText, projectRead, projectKey, userReal, projectReal] = await Promise.all([
    readProjectFile(userPath, { root: null }),
    readProjectFile(projectPath, { root }).then(
      (text) => ({ text }),
      (error: unknown) => ({ error }),
    ),
    realpath(root).catch(() => resolve(root)),
    realpath(userPath).catch(() => userPath),
    realpath(projectPath).catch(() => projectPath),
  ]);
  const user = userText === null ? null : readPermissionRulesSection(userText, userPath);
  const rules = [...(user?.rules ?? [])];
  if ('error' in projectRead) {
    if (!(projectRead.error instanceof RefusedFileError)) throw projectRead.error;
    warnings.push({
      code: 'PROJECT_CONFIG_IGNORED',
      message: `${projectRead.error.message}; its permission rules are ignored for this run. Your own rules in ${userPath} still apply.`,
    });
    return { rules, warnings };
  }
  // A project whose config is the user's own file (the project is the home directory) adds nothing.
  if (projectRead.text === null || projectReal === userReal) return { rules, warnings };
  let project: ReturnType<typeof readPermissionRulesSection>;
  try {
    project = readPermissionRulesSection(projectRead.text, projectPath);
  } catch (error) {
    // A project file that is not JSON at all is ignored for the run, as for its MCP servers (which
    // say so themselves); a malformed rule in a readable file is an error, since ignoring it would
    // drop the project's deny rules with it.
    if (!(error instanceof PermissionRuleError && error.notJson)) throw error;
    if (projectRead.text.includes('permissions')) {
      warnings.push({
        code: 'PROJECT_CONFIG_IGNORED',
        message: `${error.message}. Its permission rules are ignored for this run; your own rules in ${userPath} still apply.`,
      });
    }
    return { rules, warnings };
  }
  if (project === null) return { rules, warnings };
  const allows = project.rules.filter((rule) => rule.list === 'allow');
  const pinned = pinnedFingerprint(userText, userPath, projectKey);
  const apply = allows.length === 0 || pinned === project.fingerprint;
  rules.push(...project.rules.filter((rule) => apply || rule.list !== 'allow'));
  if (!apply) {
    const listed = allows.map((rule) => `${rule.text} (line ${rule.line})`).join(', ');
    const entry = JSON.stringify({ [projectKey]: project.fingerprint });
    warnings.push(
      pinned === undefined
        ? {
            code: 'PERMISSION_RULES_NOT_PINNED',
            message:
              `${projectPath} allows ${listed}; a project's allow rules are ignored until you pin them (its deny and ask rules apply). ` +
              `If you trust these rules as they are now, add to ${userPath}: "projectPermissionRules": ${entry}`,
          }
        : {
            code: 'PERMISSION_RULES_CHANGED',
            message:
              `${projectPath}'s permission rules changed since you pinned them, so its allow rules (${listed}) are ignored again (its deny and ask rules apply). ` +
              `If you trust them as they are now, set projectPermissionRules[${JSON.stringify(projectKey)}] to ${JSON.stringify(project.fingerprint)} in ${userPath}.`,
          },
    );
  }
  return { rules, warnings };
}
