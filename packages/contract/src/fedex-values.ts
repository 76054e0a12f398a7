// FedEx hand-made order limits, units, statuses and messages, without zod (see index.ts).

// ---- Constants ------------------------------------------------------------------------------

export const FEDEX_MAX_ITEMS = 10;
export const FEDEX_PAGE_SIZE = 20;
/** A pickup is booked for today up to this many days ahead, counted in the customer's time zone. */
export const PICKUP_DAYS_AHEAD = 2;
/** 'To Pickup Time' is the start time plus this many hours. */
export const PICKUP_WINDOW_HOURS = 4;
/** The latest start time, so the pickup window ends on the same day. */
export const PICKUP_LATEST_START = '20:00';
export const FEDEX_STREET_MAX = 35;
export const FEDEX_NAME_MAX = 100;
export const FEDEX_CITY_MAX = 50;
export const FEDEX_STATE_MAX = 50;
export const FEDEX_ZIP_MAX = 12;
export const FEDEX_EMAIL_MAX = 254;
export const FEDEX_NOTES_MAX = 500;
/** FedEx's limit for a commodity description. */
export const FEDEX_ITEM_DESCRIPTION_MAX = 450;
/** The largest label PDF an operator uploads. */
export const FEDEX_LABEL_MAX_BYTES = 10 * 1024 * 1024;

export const FEDEX_CURRENCIES = ['USD', 'CAD', 'GBP', 'INR', 'EUR'] as const;
export type FedexCurrency = (typeof FEDEX_CURRENCIES)[number];
export const DEFAULT_FEDEX_CURRENCY: FedexCurrency = 'USD';

export const SHIPMENT_PURPOSES = ['Commercial', 'Gift', 'Sample', 'Return', 'Repair', 'PersonalEffects', 'PersonalUse'] as const;
export type ShipmentPurpose = (typeof SHIPMENT_PURPOSES)[number];
/** The spec's recommended default. */
export const DEFAULT_SHIPMENT_PURPOSE: ShipmentPurpose = 'Gift';
/** How a purpose reads in a select and on the commercial invoice. */
export const SHIPMENT_PURPOSE_LABELS: Record<ShipmentPurpose, string> = {
  Commercial: 'Commercial',
  Gift: 'Gift',
  Sample: 'Sample',
  Return: 'Return',
  Repair: 'Repair',
  PersonalEffects: 'Personal Effects',
  PersonalUse: 'Personal Use',
};
/** FedEx Ship API's purpose codes (INTEGRATIONS section 11), printed on the commercial invoice. */
export const FEDEX_PURPOSE_CODES: Record<ShipmentPurpose, string> = {
  Gift: 'GIFT',
  Commercial: 'SOLD',
  Sample: 'SAMPLE',
  Return: 'REPAIR_AND_RETURN',
  Repair: 'REPAIR_AND_RETURN',
  PersonalEffects: 'PERSONAL_EFFECTS',
  PersonalUse: 'NOT_SOLD',
};

export const WEIGHT_UNITS = ['lbs', 'kg'] as const;
export type WeightUnit = (typeof WEIGHT_UNITS)[number];
export const DIMENSION_UNITS = ['inch', 'cm'] as const;
export type DimensionUnit = (typeof DIMENSION_UNITS)[number];

/** pending until the operator completes it (label uploaded) or cancels it (price refunded). */
export const FEDEX_STATUSES = ['pending', 'completed', 'cancelled'] as const;
export type FedexStatus = (typeof FEDEX_STATUSES)[number];

// ---- Messages -------------------------------------------------------------------------------

export const FEDEX_ORDER_CREATED = 'Order created successfully';
export const FEDEX_ORDER_COMPLETED = 'FedEx order completed';
export const FEDEX_ORDER_CANCELLED = 'FedEx order cancelled and refunded';
export const FEDEX_ORDER_NOT_FOUND = 'FedEx order not found';
export const FEDEX_ORDER_NOT_PENDING = 'This FedEx order is no longer pending';
export const FEDEX_PRICE_NOT_SET = 'FedEx orders are not available at the moment';
export const FEDEX_LINK_INVALID = 'This download link is invalid or has expired; reload the orders list for a new one';
export const FEDEX_LABEL_REQUIRED = 'Attach the label PDF as the file field "label"';
export const FEDEX_LABEL_NOT_PDF = 'The label file must be a PDF';
export const FEDEX_LABEL_TOO_LARGE = `The label file must be at most ${FEDEX_LABEL_MAX_BYTES / 1024 / 1024} MB`;
export const FEDEX_ITEMS_REQUIRED = 'Add at least one invoice item';
export const FEDEX_ITEMS_TOO_MANY = `At most ${FEDEX_MAX_ITEMS} invoice items`;
export const WEIGHT_UNIT_INVALID = 'Weight unit must be lbs or kg';
export const DIMENSION_UNIT_INVALID = 'Dimension unit must be inch or cm';
export const CURRENCY_INVALID = `Currency must be one of ${FEDEX_CURRENCIES.join(', ')}`;
export const SHIPMENT_PURPOSE_INVALID = `Shipment purpose must be one of ${SHIPMENT_PURPOSES.join(', ')}`;
export const PICKUP_DATE_REQUIRED = 'Pickup Date is required when a pickup is chosen';
export const PICKUP_DATE_FORMAT = 'Pickup Date must be a date like 2026-11-25';
export const PICKUP_TIME_REQUIRED = 'Pickup Time is required when a pickup is chosen';
export const PICKUP_TIME_FORMAT = 'Pickup Time must be a time like 09:30 (24-hour HH:mm)';
export const PICKUP_TIME_TOO_LATE = `Pickup Time must be at most ${PICKUP_LATEST_START}, so the ${PICKUP_WINDOW_HOURS}-hour window ends the same day`;
export const TIME_ZONE_REQUIRED = 'Time zone is required when a pickup is chosen (an IANA name like America/New_York, or a UTC offset like +05:30)';
export const TIME_ZONE_INVALID = 'Time zone must be an IANA name like America/New_York or a UTC offset like +05:30';
export const pickupDateOutOfWindowMessage = (today: string, last: string) =>
  `Pickup Date must be between ${today} and ${last} (today to ${PICKUP_DAYS_AHEAD} days ahead in your time zone)`;
export const countryInvalidMessage = (label: string) => `${label} must be a 2-letter ISO country code, like US or GB`;

// ---- The pickup's time zone -------------------------------------------------------------------

const ZONE_STATES: Record<string, string> = {
  'America/New_York': 'CT DE DC FL GA KY ME MD MA NH NJ NY NC OH PA RI SC VT VA WV',
  'America/Detroit': 'MI',
  'America/Indiana/Indianapolis': 'IN',
  'America/Chicago': 'AL AR IL IA KS LA MN MS MO NE ND OK SD TN TX WI',
  'America/Denver': 'CO MT NM UT WY',
  'America/Boise': 'ID',
  'America/Phoenix': 'AZ',
  'America/Los_Angeles': 'CA NV OR WA',
  'America/Anchorage': 'AK',
  'Pacific/Honolulu': 'HI',
  'America/Puerto_Rico': 'PR',
  'America/Edmonton': 'AB',
  'America/Vancouver': 'BC',
  'America/Winnipeg': 'MB',
  'America/Moncton': 'NB',
  'America/St_Johns': 'NL',
  'America/Halifax': 'NS PE',
  'America/Yellowknife': 'NT',
  'America/Iqaluit': 'NU',
  'America/Toronto': 'ON QC',
  'America/Regina': 'SK',
  'America/Whitehorse': 'YT',
};
/** US states (with DC and PR) and Canadian provinces by code: the zone most of the state keeps. */
const STATE_ZONES = new Map(Object.entries(ZONE_STATES).flatMap(([zone, codes]) => codes.split(' ').map((code) => [code, zone] as const)));
/** Countries of one time zone, by ISO code. */
const COUNTRY_ZONES: Record<string, string> = {
  GB: 'Europe/London',
  IE: 'Europe/Dublin',
  FR: 'Europe/Paris',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  IT: 'Europe/Rome',
  NL: 'Europe/Amsterdam',
  BE: 'Europe/Brussels',
  LU: 'Europe/Luxembourg',
  CH: 'Europe/Zurich',
  AT: 'Europe/Vienna',
  SE: 'Europe/Stockholm',
  NO: 'Europe/Oslo',
  DK: 'Europe/Copenhagen',
  FI: 'Europe/Helsinki',
  PL: 'Europe/Warsaw',
  CZ: 'Europe/Prague',
  PT: 'Europe/Lisbon',
  GR: 'Europe/Athens',
  IN: 'Asia/Kolkata',
  JP: 'Asia/Tokyo',
  CN: 'Asia/Shanghai',
  HK: 'Asia/Hong_Kong',
  SG: 'Asia/Singapore',
  KR: 'Asia/Seoul',
  TW: 'Asia/Taipei',
  TH: 'Asia/Bangkok',
  PH: 'Asia/Manila',
  IL: 'Asia/Jerusalem',
  AE: 'Asia/Dubai',
  NZ: 'Pacific/Auckland',
  ZA: 'Africa/Johannesburg',
  PR: 'America/Puerto_Rico',
};

/**
 * The time zone a pickup happens in, from its address: the state's (US and Canada, by code) or the country's
 * when it has one zone; null when the address does not say (the form then keeps the browser's).
 */
export function pickupAddressTimeZone(country: string, state: string): string | null {
  const code = country.trim().toUpperCase();
  const region = state.trim().toUpperCase();
  if (code === 'US' || code === 'CA') return STATE_ZONES.get(region) ?? null;
  return COUNTRY_ZONES[code] ?? null;
}
