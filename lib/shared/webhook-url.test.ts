import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './webhook-url';

describe('checkWebhookUrl', () => {
  it('allows public addresses and refuses private, loopback, link-local and mapped ones by default', async () => {
    for (const url of ['http://203.0.113.10/x', 'https://8.8.8.8/hook', 'http://[2001:db8::1]/x']) {
      expect((await checkWebhookUrl(url, {})).ok, url).toBe(true);
    }
    for (const url of ['http://127.0.0.1/x', 'http://10.0.0.5/x', 'http://172.20.1.1/x', 'http://192.168.1.1/x', 'http://169.254.169.254/latest',
      'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://[fd00::1]/x', 'http://0.0.0.0/x']) {
      expect((await checkWebhookUrl(url, {})).ok, url).toBe(false);
    }
  });

  it('lets BULLPEN_WEBHOOK_ALLOW name hosts, IPs and CIDRs, and development allow all', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:9/x', { BULLPEN_WEBHOOK_ALLOW: '127.0.0.1' })).ok).toBe(true);
    expect((await checkWebhookUrl('http://10.2.3.4/x', { BULLPEN_WEBHOOK_ALLOW: '10.0.0.0/8' })).ok).toBe(true);
    expect((await checkWebhookUrl('http://10.2.3.4/x', { BULLPEN_WEBHOOK_ALLOW: '10.9.0.0/16' })).ok).toBe(false);
    expect((await checkWebhookUrl('http://localhost/x', { BULLPEN_WEBHOOK_ALLOW: 'localhost' })).ok).toBe(true);
    expect((await checkWebhookUrl('http://192.168.0.2/x', { NODE_ENV: 'development' })).ok).toBe(true);
    expect((await checkWebhookUrl('ftp://8.8.8.8/x', {})).ok).toBe(false);
    expect((await checkWebhookUrl('http://user:pw@8.8.8.8/x', {})).ok).toBe(false);
  });
});
