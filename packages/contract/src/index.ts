// Each domain's zod schemas live in <domain>.ts. Its constants, messages and small helpers that
// need no zod (what a screen shows without validating anything) live in <domain>-values.ts, which
// imports no zod: the package has no side effects, so a web screen that only uses values does not
// download zod and libphonenumber.
export * from './common.ts';
export * from './regions.ts';
export * from './auth-values.ts';
export * from './auth.ts';
export * from './content.ts';
export * from './catalog-values.ts';
export * from './catalog.ts';
export * from './orders-values.ts';
export * from './orders.ts';
export * from './label-format-values.ts';
export * from './label-format.ts';
export * from './bulk.ts';
export * from './addresses-values.ts';
export * from './addresses.ts';
export * from './billing-values.ts';
export * from './billing.ts';
export * from './admin.ts';
export * from './countries.ts';
export * from './fedex-values.ts';
export * from './fedex.ts';
export * from './reseller.ts';
export * from './amazon.ts';
export * from './telegram-values.ts';
export * from './telegram.ts';
export * from './rates-values.ts';
export * from './rates.ts';
export * from './packages-values.ts';
export * from './packages.ts';
export * from './price-check.ts';
export * from './scan-forms-values.ts';
export * from './scan-forms.ts';
export * from './pickups-values.ts';
export * from './pickups.ts';
export * from './tracking-page-values.ts';
export * from './tracking-page.ts';
