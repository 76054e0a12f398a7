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
    expect(() => loadConfig({ PORT: 'seventy', DATABASE_URL: 'mysql://x', CAPTCHA_PROVIDER: 'hcaptcha' })).toThrowError(
      /PORT[\s\S]*DATABASE_URL: must be a postgres:\/\/ URL[\s\S]*CAPTCHA_PROVIDER/,
    );
  });

  it('requires keys for a hosted captcha', () => {
    expect(() => loadConfig({ CAPTCHA_PROVIDER: 'recaptcha' })).toThrowError(/CAPTCHA_SITE_KEY, CAPTCHA_SECRET: required when CAPTCHA_PROVIDER=recaptcha/);
  });

  it('buys labels from the sandbox unless told otherwise; EasyPost needs its key and a usable API root', () => {
    expect(loadConfig({})).toMatchObject({
      LABEL_PROVIDER: 'sandbox',
      EASYPOST_API_URL: 'https://api.easypost.com/v2/',
      EASYPOST_CONCURRENCY: 8,
      LABEL_MAX_COST_RATIO: 1,
      LABEL_PROCESSING_LIMIT_MINUTES: 60,
    });
    expect(() => loadConfig({ LABEL_PROVIDER: 'easypost' })).toThrowError(/EASYPOST_API_KEY: required when EasyPost is an upstream/);
    // Automatic voids run inside the USPS refund window, or not at all.
    expect(() => loadConfig({ AUTO_VOID_DAYS_USPS: '28', REFUND_WINDOW_DAYS_USPS: '28' })).toThrowError(
      /AUTO_VOID_DAYS_USPS: must be under REFUND_WINDOW_DAYS_USPS/,
    );
    expect(loadConfig({ AUTO_VOID_DAYS_USPS: '27', REFUND_WINDOW_DAYS_USPS: '28' }).AUTO_VOID_DAYS_USPS).toBe(27);
    expect(loadConfig({ AUTO_VOID_DAYS_USPS: '0', REFUND_WINDOW_DAYS_USPS: '0' }).AUTO_VOID_DAYS_USPS).toBe(0);
    expect(() => loadConfig({ LABEL_PROVIDER: 'shippo' })).toThrowError(/LABEL_PROVIDER/);
    expect(() =>
      loadConfig({ LABEL_PROVIDER: 'easypost', EASYPOST_API_KEY: 'EZTK1', EASYPOST_API_URL: 'http://127.0.0.1:9/v2', LABEL_MAX_COST_RATIO: '0' }),
    ).toThrowError(/EASYPOST_API_URL: must end with \/[\s\S]*LABEL_MAX_COST_RATIO/);
    expect(loadConfig({ LABEL_PROVIDER: 'easypost', EASYPOST_API_KEY: 'EZTK1', LABEL_MAX_COST_RATIO: '1.2' })).toMatchObject({
      LABEL_PROVIDER: 'easypost',
      LABEL_MAX_COST_RATIO: 1.2,
    });
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', SMTP_URL: '' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
  });

  it('runs jobs on the embedded queue in this process unless told otherwise', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({})).toMatchObject({ QUEUE_CONCURRENCY: 2, QUEUE_RUN_WORKERS: true, QUEUE_PREFIX: 'portal', QUEUE_STALLED_INTERVAL_MS: 30_000 });
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', QUEUE_RUN_WORKERS: 'false', QUEUE_CONCURRENCY: '4' })).toMatchObject({
      REDIS_URL: 'redis://cache:6379',
      QUEUE_RUN_WORKERS: false,
      QUEUE_CONCURRENCY: 4,
    });
    expect(() => loadConfig({ REDIS_URL: 'http://cache', QUEUE_RUN_WORKERS: 'maybe', QUEUE_CONCURRENCY: '0' })).toThrowError(
      /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL[\s\S]*QUEUE_CONCURRENCY[\s\S]*QUEUE_RUN_WORKERS: must be true or false/,
    );
  });
});
