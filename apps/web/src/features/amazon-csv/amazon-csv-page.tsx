import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { Alert, Button, Card, Col, Form, Row, Spinner } from 'react-bootstrap';
import { ADDRESS_COUNTRY, AMAZON_CSV_FILE_NAME, AMAZON_PDF_REQUIRED, amazonCsvFields, type Address, type UnreadablePage } from '@portal/contract';
import { useSavedAddresses } from '../../api/addresses.ts';
import { handOverCsvFile } from '../../api/bulk.ts';
import { unreadablePages, useGenerateAmazonCsv, type AmazonCsvForm, type AmazonCsvResult } from '../../api/amazon.ts';
import { SavedAddressSelect } from '../../components/saved-address-select.tsx';
import { RegionOptions } from '../../components/region-options.tsx';

type FormValues = AmazonCsvForm & { pdf: FileList | undefined };
const EMPTY: FormValues = { weight: '', fromName: '', fromStreet1: '', fromStreet2: '', fromCity: '', fromState: '', fromZip: '', pdf: undefined };

const pageList = (pages: number[]) => pages.join(', ');

/**
 * /amazon-csv: a Seller Central packing-slip PDF, a weight and the From details become amazon.csv,
 * downloaded at once and ready to open on the USPS CSV page. Slips that could not be read are
 * listed, and the user may generate the file without them.
 */
export function AmazonCsvPage() {
  const navigate = useNavigate();
  const addresses = useSavedAddresses();
  const { register, getValues, setValue, setError, clearErrors, formState } = useForm<FormValues>({ defaultValues: EMPTY });
  const { errors } = formState;
  const generation = useGenerateAmazonCsv();
  const busy = generation.isPending;
  const [result, setResult] = useState<AmazonCsvResult | null>(null);
  const [unreadable, setUnreadable] = useState<UnreadablePage[] | null>(null);

  const fill = (address: Address) => {
    setValue('fromName', address.name);
    setValue('fromStreet1', address.street);
    setValue('fromStreet2', address.street2);
    setValue('fromCity', address.city);
    setValue('fromState', address.state);
    setValue('fromZip', address.zip);
    clearErrors(['fromName', 'fromStreet1', 'fromStreet2', 'fromCity', 'fromState', 'fromZip']);
  };

  // A new file or new details ask for a new file: the last answer no longer applies, nor the field's own message.
  const changed = (name: keyof FormValues) => () => {
    setResult(null);
    setUnreadable(null);
    clearErrors(name);
  };

  /** Every missing or bad field marked under itself at once, by the server's own rules, before anything is sent; false when one is. */
  const checked = (form: AmazonCsvForm, pdf: File | undefined): boolean => {
    const parsed = amazonCsvFields.safeParse(form);
    const issues = parsed.success ? [] : parsed.error.issues.map((issue) => ({ field: String(issue.path[0]) as keyof FormValues, message: issue.message }));
    if (!pdf) issues.unshift({ field: 'pdf', message: AMAZON_PDF_REQUIRED });
    const marked = new Set<string>();
    for (const { field, message } of issues) {
      if (!marked.has(field)) setError(field, { type: 'validate', message });
      marked.add(field);
    }
    return issues.length === 0;
  };

  const generate = (skipUnreadable: boolean) => {
    const { pdf: files, ...form } = getValues();
    const pdf = files?.[0];
    clearErrors();
    if (!checked(form, pdf) || !pdf) return;
    setResult(null);
    generation.mutate(
      { pdf, form, skipUnreadable },
      {
        onSuccess: (generated) => {
          setResult(generated);
          setUnreadable(null);
        },
        onError: (error) => setUnreadable(unreadablePages(error)),
      },
    );
  };

  const text = (name: Exclude<keyof AmazonCsvForm, 'fromState'>, label: string, placeholder?: string) => (
    <Form.Group controlId={`amazon-${name}`}>
      <Form.Label>{label}</Form.Label>
      <Form.Control placeholder={placeholder} isInvalid={!!errors[name]} {...register(name, { onChange: changed(name) })} />
      <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
    </Form.Group>
  );

  return (
    <>
      <h1 className="h4 mb-4">Generate Amazon CSV</h1>
      <Card>
        <Card.Body>
          <Form noValidate onSubmit={(event) => event.preventDefault()} data-testid="amazon-form">
            <Row className="g-3 mb-4">
              <Col md={8}>
                <Form.Group controlId="amazon-pdf">
                  <Form.Label>Select File</Form.Label>
                  <Form.Control type="file" accept=".pdf,application/pdf" isInvalid={!!errors.pdf} {...register('pdf', { onChange: changed('pdf') })} />
                  <Form.Control.Feedback type="invalid">{errors.pdf?.message}</Form.Control.Feedback>
                  <Form.Text muted>The packing slips printed from Seller Central as one PDF.</Form.Text>
                </Form.Group>
              </Col>
              <Col md={4}>{text('weight', 'Weight', 'lbs, for every label')}</Col>
            </Row>
            <h2 className="h6 mb-3">From Details</h2>
            <SavedAddressSelect id="amazon-saved" addresses={addresses} country={ADDRESS_COUNTRY} onPick={fill} />
            <Row className="g-3 mb-4">
              <Col sm={6}>{text('fromName', 'Name')}</Col>
              <Col sm={6}>{text('fromStreet1', 'Street 1')}</Col>
              <Col sm={6}>{text('fromStreet2', 'Street 2 (Optional)')}</Col>
              <Col sm={6}>{text('fromCity', 'City')}</Col>
              <Col sm={6}>
                <Form.Group controlId="amazon-fromState">
                  <Form.Label>State</Form.Label>
                  <Form.Select isInvalid={!!errors.fromState} {...register('fromState', { onChange: changed('fromState') })}>
                    <RegionOptions />
                  </Form.Select>
                  <Form.Control.Feedback type="invalid">{errors.fromState?.message}</Form.Control.Feedback>
                </Form.Group>
              </Col>
              <Col sm={6}>{text('fromZip', 'Zip')}</Col>
            </Row>
            <Button type="button" disabled={busy} onClick={() => generate(false)} data-testid="amazon-generate">
              {busy && <Spinner animation="border" size="sm" className="me-2" />}
              Generate CSV
            </Button>
          </Form>

          {unreadable && unreadable.length > 0 && (
            <Alert variant="warning" className="mt-4" data-testid="amazon-unreadable">
              <p className="mb-2">These slips could not be read fully, so no address was guessed for them:</p>
              <ul className="mb-3">
                {unreadable.map((u) => (
                  <li key={`${u.page}-${u.reason}`}>
                    Page {u.page}: {u.reason}
                  </li>
                ))}
              </ul>
              <Button variant="outline-dark" size="sm" disabled={busy} onClick={() => generate(true)}>
                Generate CSV without {unreadable.length === 1 ? 'it' : 'them'}
              </Button>
            </Alert>
          )}

          {result && (
            <Alert variant="success" className="mt-4" data-testid="amazon-summary">
              <p className="mb-2">
                {result.found} {result.found === 1 ? 'address' : 'addresses'} found; {AMAZON_CSV_FILE_NAME} was downloaded.
                {result.skippedPages.length > 0 && ` Pages skipped: ${pageList(result.skippedPages)}.`}
              </p>
              <Button
                size="sm"
                onClick={() => {
                  handOverCsvFile(result.file);
                  void navigate('/csv-orders');
                }}
              >
                Open in USPS CSV
              </Button>
            </Alert>
          )}
        </Card.Body>
      </Card>
    </>
  );
}
