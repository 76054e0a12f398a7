import type { ReactNode } from 'react';

/** Inline `code` and **bold**, as elements. */
const inline = (text: string): ReactNode[] =>
  text.split(/(`[^`]+`|\*\*[^*]+\*\*)/).map((part, i) => {
    if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) return <code key={i}>{part.slice(1, -1)}</code>;
    if (part.length > 4 && part.startsWith('**') && part.endsWith('**')) return <strong key={i}>{part.slice(2, -2)}</strong>;
    return part;
  });

/** The OpenAPI document's descriptions use only paragraphs, `code` and **bold**: enough to render them without an HTML sink. */
export function MarkdownText({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/\n{2,}/)
        .filter((paragraph) => paragraph.trim())
        .map((paragraph, i) => (
          <p key={i}>{inline(paragraph)}</p>
        ))}
    </>
  );
}
