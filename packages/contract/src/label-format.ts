import { z } from 'zod';
import { LABEL_FORMATS, LABEL_FORMAT_INVALID, SELECTED_LABELS_EMPTY, SELECTED_LABELS_MAX, SELECTED_LABELS_TOO_MANY } from './label-format-values.ts';
import { idText } from './common.ts';

export const labelFormatSchema = z.enum(LABEL_FORMATS, { error: LABEL_FORMAT_INVALID });
export const labelFormatBody = z.object({ labelFormat: labelFormatSchema });
/** A download's `?format=`; without it, the format chosen in Account Setting. */
export const labelFormatQuery = z.object({ format: labelFormatSchema.optional() });
/** Several of the user's own orders downloaded as one file. */
export const selectedLabelsBody = z.object({
  ids: z.array(idText()).min(1, SELECTED_LABELS_EMPTY).max(SELECTED_LABELS_MAX, SELECTED_LABELS_TOO_MANY),
  format: labelFormatSchema.optional(),
});
export type SelectedLabelsBody = z.infer<typeof selectedLabelsBody>;
