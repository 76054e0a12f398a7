import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults for the embedded set-up', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 7400, CAPTCHA_PROVIDER: 'altcha', DATA_DIR: './data' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
  });

  it('stops with a message naming every bad variable', () => {
    expect(() => loadConfig({ PORT: 'seventy', DATABASE_URL: 'mysql://x', CAPTCHA_PROVIDER: 'hcaptcha' })).toThrowError(/PORT[\s\S]*DATABASE_URL: must be a postgres:\/\/ URL[\s\S]*CAPTCHA_PROVIDER/);
  });

  it('requires keys for a hosted captcha', () => {
    expect(() => loadConfig({ CAPTCHA_PROVIDER: 'recaptcha' })).toThrowError(/CAPTCHA_SITE_KEY, CAPTCHA_SECRET: required when CAPTCHA_PROVIDER=recaptcha/);
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', SMTP_URL: '' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
  });

  it('runs jobs on the embedded queue in this process unless told otherwise', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({})).toMatchObject({ QUEUE_CONCURRENCY: 2, QUEUE_RUN_WORKERS: true, QUEUE_PREFIX: 'portal', QUEUE_STALLED_INTERVAL_MS: 30_000 });
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', QUEUE_RUN_WORKERS: 'false', QUEUE_CONCURRENCY: '4' })).toMatchObject({ REDIS_URL: 'redis://cache:6379', QUEUE_RUN_WORKERS: false, QUEUE_CONCURRENCY: 4 });
    expect(() => loadConfig({ REDIS_URL: 'http://cache', QUEUE_RUN_WORKERS: 'maybe', QUEUE_CONCURRENCY: '0' })).toThrowError(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL[\s\S]*QUEUE_CONCURRENCY[\s\S]*QUEUE_RUN_WORKERS: must be true or false/);
  });
});
