export * from './common.ts';
export * from './regions.ts';
export * from './auth.ts';
export * from './content.ts';
export * from './catalog.ts';
export * from './orders.ts';
export * from './addresses.ts';
export * from './billing.ts';
