/** The sidebar, in the spec's order. */
export const NAV_ITEMS = [
  { label: 'Dashboard', path: '/', icon: '▦' },
  { label: 'Instant - USPS/FedEx (US)', path: '/createOrders', icon: '✚' },
  { label: 'USPS CSV', path: '/csv-orders', icon: '⇪' },
  { label: 'End of day', path: '/scan-forms', icon: '☰' },
  { label: 'FedEx - Handmade', path: '/fedex-order', icon: '✈' },
  { label: 'Amazon CSV Generator', path: '/amazon-csv', icon: '⇄' },
  { label: 'Deposits', path: '/deposits', icon: '$' },
  { label: 'Addresses', path: '/address', icon: '⌂' },
  { label: 'Packages', path: '/packages', icon: '▤' },
  { label: 'Prices', path: '/prices', icon: '¤' },
  { label: 'FAQs', path: '/faqs', icon: '?' },
  { label: 'Reseller API', path: '/api-docs', icon: '⌘' },
] as const;

/** Added below the others for an admin only. */
export const ADMIN_NAV_ITEM = { label: 'Operator console', path: '/admin', icon: '⚙' } as const;

/** The active entry is the one whose first path segment matches the page's. */
export const firstSegment = (pathname: string) => pathname.split('/')[1]?.toLowerCase() ?? '';
