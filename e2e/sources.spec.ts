import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { syncSource } from '../lib/cli/knowledge-sync';
import { chunkDocument } from '../lib/core/sources';
import { agent, agentKey, server, signIn } from './helpers';

/**
 * Document sources in the console, in a workspace of its own: a folder the test writes is synced
 * over MCP by the same code `bullpen knowledge sync` runs; the Knowledge page's Sources view shows
 * the source with its documents, chunks and sync state, a search finds a document and opening it
 * shows its chunks with their offsets; the ⌘K palette reaches the document and lands on the reader.
 */

test.describe.configure({ timeout: 150_000 });

const WS = 'sources-e2e';
const SOURCE = 'field-handbook';
let dir = '';
const FILES: Record<string, string> = {
  'glacier-survey.md':
    '# Glacier survey\n\nHow the crew measures the glacier each spring.\n\n## Crevasse crossings\n\nRope up in threes and probe every step across the snow bridges.\n\n## Stake readings\n\nRead each ablation stake to the centimetre and photograph it.\n',
  'radio.md': '# Radio schedule\n\nCall base camp at seven and at nineteen hundred.\n',
};

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-e2e-sources-'));
  for (const [name, body] of Object.entries(FILES)) writeFileSync(path.join(dir, name), body);
  const { key } = await agentKey('sources-agent', WS);
  const bot = await agent(key, { toolsets: 'all' });
  const result = await syncSource({ dir, source: SOURCE, call: (tool, input) => bot.call(tool, input as Record<string, unknown>), out: { log: () => {}, error: () => {} } });
  // (a worker that restarts syncs again: nothing changed, nothing written)
  expect(result).toMatchObject({ files: 2, errors: {} });
  expect(result.written + result.unchanged).toBe(2);
  await bot.close();
});

/** A hit naming the survey opens it in the Sources reader; the reader. */
async function opensSurvey(page: Page, hit: Locator): Promise<Locator> {
  await expect(hit).toContainText('Glacier survey');
  await expect(hit).toContainText(`${SOURCE}/glacier-survey.md`);
  await hit.click();
  await expect(page).toHaveURL(/\/knowledge\?view=sources&doc=[0-9a-f-]{36}$/);
  const reader = page.getByTestId('source-document');
  await expect(reader.locator('header h2')).toHaveText('Glacier survey');
  return reader;
}

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the Sources view shows a synced source with its documents, chunks and sync state; a document opens with its chunks', async ({ page }) => {
  await signIn(page, 'Sam Sources', WS);
  await page.goto(`${server().url}/knowledge`);
  await page.getByTestId('knowledge-tab-sources').click();
  await expect(page).toHaveURL(/\/knowledge\?view=sources$/);
  const row = page.locator(`[data-testid="source-row"][data-name="${SOURCE}"]`);
  await expect(row).toBeVisible();
  const cells = row.locator('td');
  await expect(cells.nth(1)).toHaveText('2');
  // the chunks the shared chunker cuts (small sections under one heading merge up to its target size)
  const chunkCount = Object.values(FILES).reduce((n, body) => n + chunkDocument(body).length, 0);
  await expect(cells.nth(2)).toHaveText(String(chunkCount));
  await expect(row.getByTestId('source-sync-state')).toContainText('synced');
  await expect(cells.nth(4)).toHaveText('none');

  await page.getByTestId('sources-search').fill('crevasse');
  const reader = await opensSurvey(page, page.getByTestId('source-hit').first());
  await expect(reader).toContainText(`${SOURCE}/glacier-survey.md`);
  const chunks = reader.getByTestId('source-chunk');
  await expect(chunks.filter({ hasText: 'Rope up in threes' })).toHaveCount(1);
  await expect(chunks.filter({ hasText: 'ablation stake' })).toHaveCount(1);
  await expect(chunks.first()).toContainText(/chars 0–\d+/);
});

test('the ⌘K palette reaches a source document and opening it lands on the reader', async ({ page }) => {
  await signIn(page, 'Pat Palette', WS);
  await page.keyboard.press('Control+k');
  const palette = page.getByTestId('command-palette');
  await palette.getByLabel('Search').fill('ablation');
  const reader = await opensSurvey(page, palette.locator('[data-testid="palette-hit"][data-type="source"]').first());
  await expect(reader.getByTestId('source-chunk').filter({ hasText: 'ablation stake' })).toHaveCount(1);
});
