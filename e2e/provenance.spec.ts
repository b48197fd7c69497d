import { expect, test, type Page } from '@playwright/test';
import { agent, agentKey, server, signIn, uniqueKey } from './helpers';

/** Opens a task's drawer on its board and waits for it to show the task. */
async function openDrawer(page: Page, key: string, ref: string) {
  await page.goto(`${server().url}/projects/${key}?task=${ref}`);
  const drawer = page.getByTestId('task-drawer');
  await expect(drawer.getByTestId('drawer-ref')).toHaveText(ref);
  return drawer;
}

/** Drops files onto an element the way a browser does (dragenter → dragover → drop with a DataTransfer). */
async function dropFiles(page: Page, selector: string, files: { name: string; type: string; text: string }[]) {
  const dt = await page.evaluateHandle((list) => {
    const d = new DataTransfer();
    for (const f of list) d.items.add(new File([f.text], f.name, { type: f.type }));
    return d;
  }, files);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent(selector, type, { dataTransfer: dt });
}

test.describe('provenance in the console', () => {
  test('a PR attached over MCP appears on the open drawer live, and its state moves with code_ref_update', async ({ page }) => {
    await signIn(page);
    const a = await agent(server().agent.key);
    const key = uniqueKey('PRV');
    await a.call('project_create', { title: 'Provenance', key });
    await a.call('task_create', { project_id: key, title: 'Ship the refund fix', requires_evidence: true });
    const drawer = await openDrawer(page, key, `${key}-1`);
    await expect(drawer.getByTestId('evidence-gate')).toHaveAttribute('data-met', 'false');
    await expect(drawer.getByTestId('drawer-evidence')).toContainText('No commit or pull request yet');

    const ref = await a.call('task_code_ref', { task_id: `${key}-1`, ref_type: 'pr', pr_url: 'https://github.com/acme/payments/pull/42', title: 'Round refunds half-even' });
    expect(ref.ok).toBe(true);
    const item = drawer.getByTestId('code-ref');
    await expect(item).toContainText('PR #42');
    await expect(item).toContainText('Round refunds half-even');
    await expect(item.getByTestId('pr-state')).toHaveText('open');
    await expect(item.locator('a')).toHaveAttribute('href', 'https://github.com/acme/payments/pull/42');
    await expect(drawer.getByTestId('evidence-gate')).toHaveAttribute('data-met', 'true');

    await a.call('code_ref_update', { code_ref_id: ref.code_ref_id, patch: { pr_state: 'merged' } });
    await expect(item.getByTestId('pr-state')).toHaveText('merged');
    await expect(drawer.getByTestId('drawer-activity')).toContainText('merged a PR');
    await a.close();
  });

  test('a file dropped on the drawer is stored, listed and served back; a link is added and removed', async ({ page }) => {
    await signIn(page);
    const a = await agent(server().agent.key);
    const key = uniqueKey('DRP');
    await a.call('project_create', { title: 'Drops', key });
    await a.call('task_create', { project_id: key, title: 'Attach the report', requires_evidence: true });
    const drawer = await openDrawer(page, key, `${key}-1`);
    await expect(drawer.getByTestId('drawer-evidence')).toContainText('Nothing attached');

    await dropFiles(page, '[data-testid="drawer-drop"]', [{ name: 'report final.txt', type: 'text/plain', text: 'all green: 412 tests' }]);
    const file = drawer.getByTestId('attachment').filter({ hasText: 'report final.txt' });
    await expect(file).toBeVisible();
    await expect(file).toHaveAttribute('data-kind', 'file');
    await expect(drawer.getByTestId('evidence-gate')).toHaveAttribute('data-met', 'true');
    const href = await file.locator('a').getAttribute('href');
    expect(href).toMatch(/^\/api\/files\/[0-9a-f-]{36}$/);
    const res = await page.request.get(`${server().url}${href}`);
    expect(res.status()).toBe(200);
    expect(await res.text()).toBe('all green: 412 tests');
    // the agent sees it too, and so would only members of this workspace
    const listed = await a.call('attachment_query', { object_type: 'task', object_id: `${key}-1` });
    expect(listed.attachments.map((x: { filename: string }) => x.filename)).toEqual(['report final.txt']);
    const outsider = await fetch(`${server().url}${href}`, { headers: { authorization: `Bearer ${server().second.agentKey}` } });
    expect(outsider.status).toBe(404);

    await drawer.getByTestId('attach-link').click();
    await drawer.getByLabel('Link URL').fill('https://ci.example.com/run/7');
    await drawer.getByLabel('Link title').fill('CI run 7');
    await drawer.getByRole('button', { name: 'Add', exact: true }).click();
    const link = drawer.getByTestId('attachment').filter({ hasText: 'CI run 7' });
    await expect(link).toHaveAttribute('data-kind', 'link');
    await link.hover();
    await link.getByRole('button', { name: 'Remove CI run 7' }).click();
    await expect(link).toHaveCount(0);
    await expect(drawer.getByTestId('attachment')).toHaveCount(1);
    await a.close();
  });

  test('an upload over the size limit is refused with 413, naming the limit', async ({ page }) => {
    await signIn(page);
    const a = await agent(server().agent.key);
    const key = uniqueKey('BIG');
    await a.call('project_create', { title: 'Big', key });
    await a.call('task_create', { project_id: key, title: 'Too large' });
    const res = await page.request.post(`${server().url}/api/files?object_type=task&object_id=${key}-1&filename=huge.bin`, {
      headers: { 'content-type': 'application/octet-stream' },
      data: Buffer.alloc(25 * 1024 * 1024 + 1),
    });
    expect(res.status()).toBe(413);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('25 MiB') });
    expect((await a.call('attachment_query', { object_type: 'task', object_id: `${key}-1` })).attachments).toEqual([]);
    await a.close();
  });

  test('the runs page shows the run tree with heartbeat age, what each produced and its cost; a silent run stands out', async ({ page }) => {
    const bot = await agentKey(`runner-${uniqueKey('R').toLowerCase()}`);
    const a = await agent(bot.key);
    const key = uniqueKey('RUN');
    await a.call('project_create', { title: 'Runs', key });
    await a.call('task_create', { project_id: key, title: 'counted' });
    await a.call('run_heartbeat', { usage: { model: 'm', tokens_in: 12000, tokens_out: 3000, cost_usd: 1.25 } });
    const fork = await a.call('run_fork', { label: 'e2e child', goal: 'prove the tree' });
    expect(fork.ok).toBe(true);
    const parentKey = fork.env.BULLPEN_PARENT_RUN_ID as string;

    await page.clock.install();
    await signIn(page);
    await page.goto(`${server().url}/runs`);
    const parent = page.locator(`[data-testid="run-row"][data-run-key="${parentKey}"]`);
    await expect(parent).toBeVisible();
    await expect(parent.getByTestId('run-cost')).toHaveText('$1.25');
    await expect(parent.getByTestId('run-counts')).toContainText('0/1 tasks');
    await expect(parent.getByTestId('run-heartbeat')).toHaveText(/^\d+s ago$/);
    await expect(parent).toHaveAttribute('data-stale', 'false');
    const child = page.locator(`[data-testid="run-row"][data-run-key="${fork.run_key}"]`);
    await expect(child).toContainText('e2e child');
    // the child sits under its parent
    const keys = await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-key')));
    expect(keys.indexOf(fork.run_key)).toBe(keys.indexOf(parentKey) + 1);
    // eleven minutes of silence later the row stands out
    await page.clock.fastForward('11:00');
    await expect(parent).toHaveAttribute('data-stale', 'true');
    await expect(parent.getByTestId('run-stale')).toBeVisible();
    await expect(parent.getByTestId('run-heartbeat')).toHaveText(/^1\dm ago$/);
    await a.close();
  });

  test('feedback filed over MCP is listed for the owner, who moves it; the filer reads the outcome', async ({ page }) => {
    const a = await agent(server().agent.key);
    const title = `Brief lacks due dates ${uniqueKey('F')}`;
    const filed = await a.call('feature_request_create', { title, body: 'project_brief shows no due dates; I had to page task_query.', kind: 'capability', tool_name: 'project_brief' });
    expect(filed.ok).toBe(true);
    await signIn(page);
    await page.goto(`${server().url}/feedback`);
    const item = page.getByTestId('feedback-item').filter({ hasText: title });
    await expect(item).toContainText('capability');
    await expect(item.getByTestId('feedback-status')).toHaveText('Open');
    await item.getByTestId('triage-status').selectOption('accepted');
    await item.getByTestId('triage-resolution').fill('Planned for the next release');
    await item.getByTestId('triage-save').click();
    await expect(page.getByTestId('feedback-item').filter({ hasText: title }).getByTestId('feedback-status')).toHaveText('Accepted');
    const back = await a.call('feature_request_query', { id: filed.feature_request_id });
    expect(back.feature_requests[0]).toMatchObject({ status: 'accepted', resolution: 'Planned for the next release' });
    await a.close();
  });

  test('a project links a repository from its brief', async ({ page }) => {
    await signIn(page);
    const a = await agent(server().agent.key);
    const key = uniqueKey('REP');
    await a.call('project_create', { title: 'Repos', key });
    await page.goto(`${server().url}/projects/${key}/brief`);
    const section = page.getByTestId('project-repositories');
    await expect(section).toContainText('None linked');
    await section.getByLabel('Repository remote URL').fill('git@github.com:acme/console-linked.git');
    await section.getByRole('button', { name: 'Link' }).click();
    await expect(section.getByTestId('project-repository')).toContainText('acme/console-linked');
    await expect(section.getByTestId('project-repository')).toContainText('primary');
    const brief = await a.call('project_brief', { project: key });
    expect(brief.repositories.map((r: { slug: string }) => r.slug)).toEqual(['acme/console-linked']);
    await a.close();
  });
});
