export * from './common.ts';
export * from './regions.ts';
export * from './auth.ts';
export * from './content.ts';
