import { useEffect, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card } from 'react-bootstrap';
import { SCAN_FORM_STATUS_LABELS, type ScanForm, type ScanFormStatus } from '@portal/contract';
import { useDownload } from '../../api/mutation.ts';
import { FREED_LABELS, downloadScanForm, scanFormsQuery } from '../../api/scan-forms.ts';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { fromLine } from './from-line.ts';

/** A form is asked of the carrier in the background: the list is read again this often while one is. */
const CREATING_POLL_MS = 2000;

const VARIANTS: Record<ScanFormStatus, 'warning' | 'success' | 'danger'> = { creating: 'warning', created: 'success', failed: 'danger' };

function FormStatus({ form }: { form: ScanForm }) {
  return (
    <span>
      <Badge bg={VARIANTS[form.status]} text={form.status === 'creating' ? 'dark' : undefined} data-scan-form-status={form.status}>
        {SCAN_FORM_STATUS_LABELS[form.status]}
      </Badge>
      {form.status === 'failed' && form.message && <span className="d-block small text-danger text-break">{form.message}</span>}
    </span>
  );
}

/** The customer's SCAN forms, newest first, with the PDF of each one made. */
export function ScanFormsCard() {
  const queryClient = useQueryClient();
  const forms = useQuery({
    ...scanFormsQuery(),
    refetchOnMount: 'always',
    refetchInterval: (query) => (query.state.data?.forms.some((form) => form.status === 'creating') ? CREATING_POLL_MS : false),
  });
  const rows = forms.data?.forms ?? [];
  const creating = rows.some((form) => form.status === 'creating');
  // When the last form on its way is decided, today's labels and the orders are read again: a failed form let its labels go.
  const wasCreating = useRef(false);
  useEffect(() => {
    if (wasCreating.current && !creating) for (const queryKey of FREED_LABELS) void queryClient.invalidateQueries({ queryKey });
    wasCreating.current = creating;
  }, [creating, queryClient]);
  const pdf = useDownload(downloadScanForm);

  const columns: Columns<ScanForm> = [
    { header: 'Form', td: { className: 'font-monospace stack-key' }, cell: (form) => form.name },
    { header: 'Ship date', td: { 'data-label': 'Ship date', className: 'text-nowrap' }, cell: (form) => form.shipDate },
    { header: 'Carrier', td: { 'data-label': 'Carrier' }, cell: (form) => form.carrier },
    { header: 'From', td: { 'data-label': 'From', className: 'small' }, cell: (form) => fromLine(form.from) },
    { header: 'Labels', className: 'text-end', td: { 'data-label': 'Labels' }, cell: (form) => form.labelCount },
    { header: 'Status', td: { 'data-label': 'Status' }, cell: (form) => <FormStatus form={form} /> },
    {
      header: 'Action',
      td: (form) => ({ className: form.status === 'created' ? 'text-nowrap stack-actions' : 'stack-hide' }),
      cell: (form) =>
        form.status === 'created' && (
          <Button size="sm" variant="outline-success" disabled={pdf.saving?._id === form._id} onClick={() => pdf.download(form)}>
            Download
          </Button>
        ),
    },
  ];

  return (
    <Card className="mb-4">
      <Card.Header>
        <h2 className="h6 mb-0">SCAN forms</h2>
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={forms}
          rows={rows}
          columns={columns}
          what="the SCAN forms"
          empty="No SCAN forms yet"
          testId="scan-forms-table"
          rowProps={(form) => ({ 'data-testid': 'scan-form-row', 'data-scan-form-id': form._id })}
          stack
        />
      </Card.Body>
    </Card>
  );
}
