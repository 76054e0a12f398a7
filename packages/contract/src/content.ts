import { z } from 'zod';

export const tosResponse = z.object({ tos: z.string() });
export const faqResponse = z.object({ data: z.array(z.object({ question: z.string(), answer: z.string() })) });
export const announcementResponse = z.object({ announcement: z.string(), status: z.boolean() });

export const CAPTCHA_PROVIDERS = ['altcha', 'recaptcha', 'turnstile'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

/** What the page needs to know before sign-in: which captcha to draw, and where the API lives. */
export const publicConfigResponse = z.object({
  captcha: z.object({ provider: z.enum(CAPTCHA_PROVIDERS), siteKey: z.string().nullable(), challengeUrl: z.string().nullable() }),
  telegramBot: z.string().nullable(),
});
export type PublicConfig = z.infer<typeof publicConfigResponse>;
