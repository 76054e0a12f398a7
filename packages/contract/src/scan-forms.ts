import { z } from 'zod';
import { idText } from './common.ts';
import { orderPartySchema } from './orders.ts';
import { SCAN_FORM_IDS_MAX, SCAN_FORM_STATUSES } from './scan-forms-values.ts';

/** POST /scan-form: the labels to put on forms, by order ids or as a bulk order's. */
export const scanFormRequestBody = z
  .object({
    orderIds: z.array(idText()).min(1, 'Select at least one label').max(SCAN_FORM_IDS_MAX, `At most ${SCAN_FORM_IDS_MAX} labels at once`).optional(),
    bulkOrderId: idText().optional(),
  })
  .strict()
  .refine((body) => (body.orderIds ? 1 : 0) + (body.bulkOrderId ? 1 : 0) === 1, { message: 'Name either orderIds or a bulkOrderId' });
export type ScanFormRequestBody = z.infer<typeof scanFormRequestBody>;

/** The from address a form is made for: an order's party without its phone. */
export const scanFormFromSchema = orderPartySchema.omit({ phone: true });
export type ScanFormFrom = z.infer<typeof scanFormFromSchema>;

export const scanFormSchema = z.object({
  _id: z.string(),
  /** SF- and the first 8 characters of the id. */
  name: z.string(),
  status: z.enum(SCAN_FORM_STATUSES),
  carrier: z.string(),
  /** YYYY-MM-DD. */
  shipDate: z.string(),
  from: scanFormFromSchema,
  labelCount: z.number().int(),
  bulkOrderId: z.string().nullable(),
  /** Why it failed, in the upstream's words; else null. */
  message: z.string().nullable(),
  /** The PDF's download path once created, else null. */
  pdf: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ScanForm = z.infer<typeof scanFormSchema>;

/** A form's labels: order, short number and tracking number. */
export const scanFormDetailSchema = scanFormSchema.extend({
  labels: z.array(z.object({ _id: z.string(), OrderId: z.string(), tracking: z.string().nullable(), toName: z.string() })),
});
export type ScanFormDetail = z.infer<typeof scanFormDetailSchema>;

/** The answer of a request: the forms asked (one per group) and each label that could not go on one, with why. */
export const scanFormResultSchema = z.object({
  message: z.string(),
  forms: z.array(scanFormSchema),
  refused: z.array(z.object({ orderId: z.string(), reason: z.string() })),
});
export type ScanFormResult = z.infer<typeof scanFormResultSchema>;

export const scanFormListResponse = z.object({ forms: z.array(scanFormSchema) });
export type ScanFormListResponse = z.infer<typeof scanFormListResponse>;

/** Today's labels: completed labels not yet on a form that ship today or later, grouped as a form would take them. */
export const todayLabelsResponse = z.object({
  groups: z.array(
    z.object({
      shipDate: z.string(),
      carrier: z.string(),
      from: scanFormFromSchema,
      labels: z.array(z.object({ _id: z.string(), OrderId: z.string(), tracking: z.string().nullable(), toName: z.string(), labelType: z.string() })),
    }),
  ),
});
export type TodayLabelsResponse = z.infer<typeof todayLabelsResponse>;

/** GET /admin/scan-forms: every customer's newest forms, with the owner (a failed one with the upstream's reason). */
/** GET /admin/scan-forms: every customer's newest forms, or one customer's (`userId`, their page in the console). */
export const adminScanFormsQuery = z.object({ status: z.enum(SCAN_FORM_STATUSES).optional(), userId: idText().optional() });
export type AdminScanFormsQuery = z.infer<typeof adminScanFormsQuery>;
export const adminScanFormsResponse = z.object({
  forms: z.array(scanFormSchema.extend({ owner: z.object({ _id: z.string(), tgId: z.string(), username: z.string() }) })),
});
export type AdminScanFormsResponse = z.infer<typeof adminScanFormsResponse>;
