import type sanitizeHtml from 'sanitize-html';

// The terms are HTML an operator writes; what the shop shows is only this allowlist: text
// structure, tables, links (http, https, mailto, tel) and images (http, https). No scripts, styles,
// event handlers or frames.
const options = (defaults: sanitizeHtml.IDefaults): sanitizeHtml.IOptions => ({
  allowedTags: [...defaults.allowedTags, 'img'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    ol: ['start', 'type'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // A link that opens a new tab cannot reach back into the shop's page.
  transformTags: { a: (tagName, attribs) => ({ tagName, attribs: attribs.target ? { ...attribs, rel: 'noopener noreferrer' } : attribs }) },
});

/** Loaded the first time the terms are shown or saved: sanitize-html and its parser are 7 MB of a process at rest. */
export async function sanitizeTermsHtml(html: string): Promise<string> {
  const { default: sanitize } = await import('sanitize-html');
  return sanitize(html, options(sanitize.defaults));
}
