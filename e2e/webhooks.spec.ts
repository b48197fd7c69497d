import { expect, test } from '@playwright/test';
import { server, signIn } from './helpers';

test('an owner adds a webhook on the Webhooks page, sees its secret once, and removes it', async ({ page }) => {
  await signIn(page);
  await page.goto(`${server().url}/webhooks`);
  // a public documentation address: allowed without BULLPEN_WEBHOOK_ALLOW
  const url = `http://203.0.113.10/hook-${Date.now().toString(36)}`;
  await page.getByLabel('Webhook URL').fill(url);
  await page.getByLabel('Event types (comma-separated)').fill('task.done,handoff.created');
  await page.getByTestId('webhook-add').getByRole('button', { name: 'Add' }).click();
  const secret = page.getByTestId('webhook-secret');
  await expect(secret).toBeVisible();
  await expect(secret.locator('code')).toHaveText(/^whsec_[0-9a-f]{64}$/);
  const row = page.locator('[data-testid="webhook-row"]', { hasText: url });
  await expect(row).toBeVisible();
  await expect(row).toContainText('task.done, handoff.created');
  await expect(row.getByTestId('webhook-status')).toHaveText('active');
  // shown once: a reload shows the webhook without its secret
  await page.reload();
  await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
  page.once('dialog', (d) => void d.accept());
  await page.locator('[data-testid="webhook-row"]', { hasText: url }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.locator('[data-testid="webhook-row"]', { hasText: url })).toHaveCount(0);
});
