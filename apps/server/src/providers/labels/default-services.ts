import type { UpstreamService } from './label-provider.ts';

/**
 * What each spec label type is bought as at each upstream at first, by upstream and type uid; the console edits it. A
 * type an upstream has no mapping for is not bought there. The sandbox makes every type itself and needs none. The UPS
 * types ship inside Canada: the carriers' Canadian UPS services (the US names, Ground, NextDayAir..., get no rate there).
 */
export const DEFAULT_UPSTREAM_SERVICES: Record<string, Record<string, UpstreamService>> = {
  easypost: {
    priority: { carrier: 'USPS', service: 'Priority' },
    uspsv9: { carrier: 'USPS', service: 'Priority' },
    ground_oz: { carrier: 'USPS', service: 'GroundAdvantage' },
    fedex_ground: { carrier: 'FedEx', service: 'FEDEX_GROUND' },
    ups_standard: { carrier: 'UPS', service: 'UPSStandard' },
    ups_express: { carrier: 'UPS', service: 'Express' },
    ups_express_saver: { carrier: 'UPS', service: 'UPSSaver' },
    ups_express_early: { carrier: 'UPS', service: 'ExpressPlus' },
    ups_expedited: { carrier: 'UPS', service: 'Expedited' },
  },
  // Shippo names a rate by its provider and service level token (the SDK's ServiceLevel enums): Express Early has its
  // own token beside UPS's Express Plus.
  shippo: {
    priority: { carrier: 'USPS', service: 'usps_priority' },
    uspsv9: { carrier: 'USPS', service: 'usps_priority' },
    ground_oz: { carrier: 'USPS', service: 'usps_ground_advantage' },
    fedex_ground: { carrier: 'FedEx', service: 'fedex_ground' },
    ups_standard: { carrier: 'UPS', service: 'ups_standard' },
    ups_express: { carrier: 'UPS', service: 'ups_express' },
    ups_express_saver: { carrier: 'UPS', service: 'ups_saver' },
    ups_express_early: { carrier: 'UPS', service: 'ups_express_early' },
    ups_expedited: { carrier: 'UPS', service: 'ups_expedited' },
  },
};

/** The upstreams a shop can buy labels at. */
export const UPSTREAM_NAMES = ['easypost', 'shippo', 'sandbox'] as const;
export type UpstreamName = (typeof UPSTREAM_NAMES)[number];
