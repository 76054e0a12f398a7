// The recipient's public tracking page (/t/<token>) and its status mails: constants a screen shows without zod.

/**
 * A tracking page's token: 128 random bits as base64url, 22 characters; the labels made before the tracking pages were
 * given theirs by the database (the migration 2026-11-30-50), as 32 lower-case hex digits.
 */
export const TRACKING_TOKEN_PATTERN = /^(?:[A-Za-z0-9_-]{22}|[0-9a-f]{32})$/;
/** The web path of a label's tracking page. */
export const trackingPagePath = (token: string) => `/t/${token}`;
export const TRACKING_PAGE_NOT_FOUND = 'Tracking page not found';
export const TRACKING_LINK_INVALID = 'This is not a tracking link';
/** The statuses whose change mails the recipient (when the customer turned recipient mails on). */
export const RECIPIENT_MAIL_STATUSES = ['in_transit', 'out_for_delivery', 'delivered'] as const;
export const RECIPIENT_UNSUBSCRIBED = 'You will get no more mails about parcels from this sender.';
