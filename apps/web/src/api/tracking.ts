import { queryOptions } from '@tanstack/react-query';
import type { TrackingPage } from '@portal/contract';
import { request } from './client.ts';

/** A label's public tracking page: no sign-in, the token is the key (sent without the session's token). */
export const readTrackingPage = (token: string) => request<TrackingPage>(`/track/${encodeURIComponent(token)}`, { auth: false });

/** Not retried: an unknown token stays unknown. */
export const trackingPageQuery = (token: string) => queryOptions({ queryKey: ['tracking-page', token], queryFn: () => readTrackingPage(token), retry: false });
