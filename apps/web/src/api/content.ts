import { queryOptions } from '@tanstack/react-query';
import { request } from './client.ts';

export const readTos = () => request<{ tos: string }>('/tos/read', { auth: false });
export const readFaqs = () => request<{ data: { question: string; answer: string }[] }>('/faq/read');
export const readAnnouncement = () => request<{ announcement: string; status: boolean }>('/announcement/read');

export const tosQuery = () => queryOptions({ queryKey: ['tos'], queryFn: readTos });
export const faqsQuery = () => queryOptions({ queryKey: ['faqs'], queryFn: readFaqs });
export const announcementQuery = () => queryOptions({ queryKey: ['announcement'], queryFn: readAnnouncement });
