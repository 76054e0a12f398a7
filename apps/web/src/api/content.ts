import { request } from './client.ts';

export const ANNOUNCEMENT_QUERY_KEY = ['announcement'];
export const TOS_QUERY_KEY = ['tos'];
export const FAQS_QUERY_KEY = ['faqs'];

export const readTos = () => request<{ tos: string }>('/tos/read', { auth: false });
export const readFaqs = () => request<{ data: { question: string; answer: string }[] }>('/faq/read');
export const readAnnouncement = () => request<{ announcement: string; status: boolean }>('/announcement/read');
