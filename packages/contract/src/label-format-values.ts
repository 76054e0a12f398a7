// The label file formats a customer chooses in Account Setting, without zod (see index.ts).

/** pdf: one 4x6 inch page a label; pdf-letter: US Letter pages of two labels with a cut line; zpl: ZPL II for 4x6 thermal printers at 203 dpi. */
export const LABEL_FORMATS = ['pdf', 'pdf-letter', 'zpl'] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];
export const DEFAULT_LABEL_FORMAT: LabelFormat = 'pdf';

export const LABEL_FORMAT_NAMES: Record<LabelFormat, string> = {
  pdf: '4x6 PDF (one label a page)',
  'pdf-letter': 'Letter PDF (two labels a page, with a cut line)',
  zpl: 'ZPL for thermal printers (4x6, 203 dpi)',
};

/** The file name's extension and the content type of a label file in this format. */
export const labelFileType = (format: LabelFormat) =>
  format === 'zpl' ? { extension: 'zpl', contentType: 'application/zpl' } : { extension: 'pdf', contentType: 'application/pdf' };

export const LABEL_FORMAT_SAVED = 'Label format saved';
export const LABEL_FORMAT_INVALID = `Label format must be one of ${LABEL_FORMATS.join(', ')}`;
/** Selected orders downloaded as one file at once, at most. */
export const SELECTED_LABELS_MAX = 100;
export const SELECTED_LABELS_EMPTY = 'Select at least one order';
export const SELECTED_LABELS_TOO_MANY = `Select at most ${SELECTED_LABELS_MAX} orders at once`;
export const selectedNotReady = (count: number) =>
  count === 1 ? '1 selected order has no label to download (not completed)' : `${count} selected orders have no label to download (not completed)`;
