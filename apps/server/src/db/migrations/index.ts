import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026-11-21-01-foundation.ts';
import * as orders from './2026-11-21-02-orders.ts';
import * as billing from './2026-11-21-03-billing.ts';
import * as jobs from './2026-11-21-04-jobs.ts';
import * as bulk from './2026-11-21-05-bulk.ts';
import * as claims from './2026-11-23-01-claims.ts';
import * as fedex from './2026-11-23-30-fedex.ts';
import * as admin from './2026-11-23-40-admin.ts';
import * as reseller from './2026-11-23-50-reseller.ts';
import * as telegram from './2026-11-23-70-telegram.ts';
import * as orderSearch from './2026-11-24-10-order-search.ts';
import * as orderSearchTokens from './2026-11-24-20-order-search-tokens.ts';
import * as settledOrderCounts from './2026-11-24-30-settled-order-counts.ts';
import * as bulkRowsOnly from './2026-11-24-40-bulk-rows-only.ts';
import * as orderSearchLater from './2026-11-24-50-order-search-later.ts';
import * as statusUpdatedDropped from './2026-11-25-10-orders-status-updated-dropped.ts';
import * as catalogVersion from './2026-11-25-20-catalog-version.ts';
import * as balanceOffIndexes from './2026-11-27-10-balance-off-indexes.ts';
import * as orderSearchOwnerKeys from './2026-11-27-20-order-search-owner-keys.ts';
import * as orderClaims from './2026-11-28-10-order-claims.ts';
import * as revokedTokens from './2026-11-28-20-revoked-tokens.ts';
import * as shopEvents from './2026-11-28-30-shop-events.ts';
import * as easypost from './2026-11-28-40-easypost.ts';
import * as labelFormat from './2026-11-28-60-label-format.ts';
import * as orderSearchFold from './2026-11-28-70-order-search-fold.ts';
import * as trackingEvents from './2026-11-29-10-tracking-events.ts';
import * as upsCanadaServices from './2026-11-29-50-ups-canada-services.ts';
import * as labelRefunds from './2026-11-28-60-label-refunds.ts';
import * as rates from './2026-11-29-20-rates.ts';
import * as savedPackages from './2026-11-29-30-saved-packages.ts';
import * as shipDateReference from './2026-11-29-40-ship-date-reference.ts';
import * as priceCheck from './2026-11-29-60-price-check.ts';
import * as upstreamList from './2026-11-29-70-upstream-list.ts';
import * as scanForms from './2026-11-30-10-scan-forms.ts';
import * as pickups from './2026-11-30-20-pickups.ts';
import * as autoVoid from './2026-11-30-30-auto-void.ts';
import * as recipientTracking from './2026-11-30-50-recipient-tracking.ts';
import * as insurance from './2026-11-30-60-insurance.ts';
import * as returnRows from './2026-11-30-70-return-rows.ts';
import * as returnLabels from './2026-11-30-40-return-labels.ts';

/** Every migration, in order. A new one is appended with a later date prefix. */
const migrations: Record<string, Migration> = {
  '2026-11-21-01-foundation': foundation,
  '2026-11-21-02-orders': orders,
  '2026-11-21-03-billing': billing,
  '2026-11-21-04-jobs': jobs,
  '2026-11-21-05-bulk': bulk,
  '2026-11-23-01-claims': claims,
  '2026-11-23-30-fedex': fedex,
  '2026-11-23-40-admin': admin,
  '2026-11-23-50-reseller': reseller,
  '2026-11-23-70-telegram': telegram,
  '2026-11-24-10-order-search': orderSearch,
  '2026-11-24-20-order-search-tokens': orderSearchTokens,
  '2026-11-24-30-settled-order-counts': settledOrderCounts,
  '2026-11-24-40-bulk-rows-only': bulkRowsOnly,
  '2026-11-24-50-order-search-later': orderSearchLater,
  '2026-11-25-10-orders-status-updated-dropped': statusUpdatedDropped,
  '2026-11-25-20-catalog-version': catalogVersion,
  '2026-11-27-10-balance-off-indexes': balanceOffIndexes,
  '2026-11-27-20-order-search-owner-keys': orderSearchOwnerKeys,
  '2026-11-28-10-order-claims': orderClaims,
  '2026-11-28-20-revoked-tokens': revokedTokens,
  '2026-11-28-30-shop-events': shopEvents,
  '2026-11-28-40-easypost': easypost,
  '2026-11-28-60-label-format': labelFormat,
  '2026-11-28-70-order-search-fold': orderSearchFold,
  '2026-11-28-60-label-refunds': labelRefunds,
  '2026-11-29-10-tracking-events': trackingEvents,
  '2026-11-29-20-rates': rates,
  '2026-11-29-30-saved-packages': savedPackages,
  '2026-11-29-50-ups-canada-services': upsCanadaServices,
  '2026-11-29-40-ship-date-reference': shipDateReference,
  '2026-11-29-60-price-check': priceCheck,
  '2026-11-29-70-upstream-list': upstreamList,
  '2026-11-30-10-scan-forms': scanForms,
  '2026-11-30-20-pickups': pickups,
  '2026-11-30-30-auto-void': autoVoid,
  '2026-11-30-40-return-labels': returnLabels,
  '2026-11-30-50-recipient-tracking': recipientTracking,
  '2026-11-30-60-insurance': insurance,
  '2026-11-30-70-return-rows': returnRows,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
