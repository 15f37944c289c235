// Skills through a real turn (issue 27): the first request lists every skill's name and
// description and no body; the model loads one with the skill tool and only that body is ever
// sent; a malformed skill is a warning naming its file; a skill file that leads to a secret is
// refused and its text never reaches the provider; a project without skills gets no skill tool.

import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NO_APPROVER, type RunEvent } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn, skillContextCost, toolsOffered } from '../../src/runner/index.js';
import { startFakeProvider, type FakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { toolOutputsSent } from '../helpers/sent-requests.js';

const POLICY = { sandbox: 'read-only' as const, approvalPolicy: 'on-request' as const, network: false };

async function writeSkill(root: string, folder: string, name: string, frontMatter: string, body: string): Promise<void> {
  await mkdir(join(root, folder, name), { recursive: true });
  await writeFile(join(root, folder, name, 'SKILL.md'), `---\n${frontMatter}\n---\n${body}\n`);
}

async function turn(root: string, provider: FakeProvider) {
  const runner = await openRunner({
    root,
    home: join(root, '.home'),
    model: 'acme',
    wireApi: 'chat',
    gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' }),
    compaction: null,
    mcp: false,
  });
  const events: RunEvent[] = [];
  const result = await runTurn(runner, {
    prompt: 'review my change',
    policy: POLICY,
    runId: 'r1',
    signal: new AbortController().signal,
    approvals: NO_APPROVER,
    onEvent: (event) => events.push(event),
  });
  return { result, events, runner };
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { function?: { name?: string } }[];
  return tools.map((tool) => tool.function?.name ?? '?');
}

describe('skills', { concurrency: true }, () => {
  test('the first request lists both skills; only the loaded one is ever sent', async (t) => {
    await withTempDir(async (root) => {
      await writeSkill(
        root,
        '.agents/skills',
        'review',
        'name: review\ndescription: Review a change against the house checklist.',
        'REVIEW-BODY-7f3a: read checklist.md, then look for missing tests.',
      );
      await writeSkill(
        root,
        '.claude/skills',
        'deploy',
        'name: deploy\ndescription: >\n  Deploy the service\n  to staging.',
        'DEPLOY-BODY-91c2: never deploy on Fridays.',
      );
      await writeFile(join(root, '.agents/skills/review/checklist.md'), 'CHECKLIST-55e1\n');
      const provider = await startFakeProvider({
        script: [
          { toolCalls: [{ name: 'skill', arguments: { name: 'review' } }] },
          { toolCalls: [{ name: 'skill', arguments: { name: 'review', file: 'checklist.md' } }] },
          { text: 'Reviewed.' },
        ],
      });
      t.after(() => provider.close());
      const { result, runner } = await turn(root, provider);
      assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
      const [first, second, third] = provider.requests;
      assert.ok(first && second && third);
      assert.match(first.rawBody, /- review: Review a change against the house checklist\./);
      assert.match(first.rawBody, /- deploy: Deploy the service to staging\./);
      assert.ok(toolNames(first.body).includes('skill'), toolNames(first.body).join(','));
      assert.doesNotMatch(first.rawBody, /REVIEW-BODY|DEPLOY-BODY/);
      const [loaded] = toolOutputsSent(second.body, 'chat');
      assert.match(loaded ?? '', /REVIEW-BODY-7f3a/);
      // The supporting files are listed with the body, and read on request.
      assert.match(loaded ?? '', /<skill_files>\nchecklist\.md\n<\/skill_files>/);
      assert.match(toolOutputsSent(third.body, 'chat')[1] ?? '', /CHECKLIST-55e1/);
      for (const request of provider.requests) assert.doesNotMatch(request.rawBody, /DEPLOY-BODY/);
      // What /status reports: the list, and each load still in the history.
      const { records } = await runner.store.read(result.sessionId);
      const items = records.flatMap((record) => (record.type === 'response_item' ? [record.item] : []));
      // The rule the server's rebuilt requests use gives the tools this request was sent.
      assert.deepEqual(
        toolsOffered(runner.tools, items).map((tool) => tool.name),
        toolNames(first.body),
      );
      const cost = skillContextCost(items);
      assert.equal(cost.listed, 2);
      assert.ok(cost.listTokens > 10, String(cost.listTokens));
      assert.deepEqual(
        cost.loaded.map((each) => [each.name, each.file]),
        [
          ['review', null],
          ['review', 'checklist.md'],
        ],
      );
    });
  });

  test('a malformed skill is a warning naming its file, and is not listed', async (t) => {
    await withTempDir(async (root) => {
      await writeSkill(root, '.agents/skills', 'good', 'name: good\ndescription: Works.', 'GOOD');
      await writeSkill(root, '.agents/skills', 'broken', 'name: broken\ndescription: "never closed', 'BROKEN');
      const provider = await startFakeProvider({ script: [{ text: 'ok' }] });
      t.after(() => provider.close());
      const { events } = await turn(root, provider);
      const warnings = events.filter((event) => event.type === 'warning');
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.equal(warnings[0]!.code, 'SKILL_IGNORED');
      assert.match(warnings[0]!.message, /\.agents\/skills\/broken\/SKILL\.md: malformed front matter line 3/);
      assert.match(provider.requests[0]!.rawBody, /- good: Works\./);
      assert.doesNotMatch(provider.requests[0]!.rawBody, /broken/);
    });
  });

  test('a skill file that leads to a secret outside its folder is refused', async (t) => {
    await withTempDir(async (root) => {
      const outside = join(root, 'outside');
      await mkdir(join(outside, '.ssh'), { recursive: true });
      await writeFile(join(outside, '.ssh', 'id_rsa'), 'PRIVATE-KEY-d00d\n');
      await writeFile(join(outside, 'stolen.md'), '---\nname: stolen\ndescription: STOLEN-DESCRIPTION\n---\nSTOLEN\n');
      const project = join(root, 'project');
      await writeSkill(project, '.agents/skills', 'helper', 'name: helper\ndescription: Helps.', 'HELPER');
      await symlink(join(outside, '.ssh', 'id_rsa'), join(project, '.agents/skills/helper/key.txt'));
      // SKILL.md itself a link out of the folder: the skill is skipped with a warning.
      await mkdir(join(project, '.agents/skills/stolen'));
      await symlink(join(outside, 'stolen.md'), join(project, '.agents/skills/stolen/SKILL.md'));
      const provider = await startFakeProvider({
        script: [{ toolCalls: [{ name: 'skill', arguments: { name: 'helper', file: 'key.txt' } }] }, { text: 'done' }],
      });
      t.after(() => provider.close());
      const { events, result } = await turn(project, provider);
      assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
      const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
      assert.ok(
        warnings.some((message) => /stolen\/SKILL\.md: leads outside/.test(message)),
        warnings.join('\n'),
      );
      const [output] = toolOutputsSent(provider.requests[1]!.body, 'chat');
      assert.match(output ?? '', /Error \[REFUSED\]: key\.txt leads outside the skill's folder/);
      for (const request of provider.requests) assert.doesNotMatch(request.rawBody, /PRIVATE-KEY|STOLEN-DESCRIPTION/);
    });
  });

  test('a project without skills gets no skill tool and no list', async (t) => {
    await withTempDir(async (root) => {
      const provider = await startFakeProvider({ script: [{ text: 'ok' }] });
      t.after(() => provider.close());
      const { result, runner } = await turn(root, provider);
      const [first] = provider.requests;
      assert.ok(first);
      assert.ok(!toolNames(first.body).includes('skill'), toolNames(first.body).join(','));
      const { records } = await runner.store.read(result.sessionId);
      const items = records.flatMap((record) => (record.type === 'response_item' ? [record.item] : []));
      assert.deepEqual(
        toolsOffered(runner.tools, items).map((tool) => tool.name),
        toolNames(first.body),
      );
      assert.ok(toolNames(first.body).includes('read_file'));
      assert.doesNotMatch(first.rawBody, /available_skills/);
    });
  });
});
