import { useEffect, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Alert, Button, Card, Col, Form, Row, Spinner } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { CSV_FILE_EMPTY, PLEASE_SELECT_CSV_FILE, PLEASE_SELECT_LABEL_TYPE, TEMPLATE_REQUIRED, templateRequired } from '@portal/contract';
import { ApiError } from '../../api/client.ts';
import { takeHandedOverCsvFile, csvRowErrors, usePayCsv, useValidateCsv, type CsvProblems, type ValidateCsvResult } from '../../api/bulk.ts';
import { money } from '../../components/format.ts';
import { useLabelTypes } from '../../api/catalog.ts';
import { CHOOSE_TYPE_FOR_PRICE, ChosenTypeText, LabelTypeSelect, TemplateSelect } from '../../components/label-type-selects.tsx';
import { CsvRowErrors } from './csv-row-errors.tsx';

type CsvFormValues = { labelType: string; design: string; csv: FileList | undefined };
const EMPTY: CsvFormValues = { labelType: '', design: '', csv: undefined };

/**
 * Label type, Template (priority only) and the CSV file; 'Validate CSV' prices the file, and
 * 'Pay $total' stays disabled until it has. Changing the type or the file asks for a new
 * validation. After payment the form resets and Pay is disabled again.
 */
export function CsvUploadCard() {
  const labelTypes = useLabelTypes();
  const formRef = useRef<HTMLFormElement>(null);
  const { register, control, getValues, reset, setValue } = useForm<CsvFormValues>({ defaultValues: EMPTY });
  const labelTypeId = useWatch({ control, name: 'labelType' });
  const uid = labelTypes.find((type) => type._id === labelTypeId)?.uid ?? '';

  const [validated, setValidated] = useState<ValidateCsvResult | null>(null);
  const [rowErrors, setRowErrors] = useState<CsvProblems | null>(null);
  const [templateMissing, setTemplateMissing] = useState(false);
  // What Validate or Pay found missing before sending (no type, no file, an empty file): under its field until it changes.
  const [missing, setMissing] = useState<{ field: 'labelType' | 'csv'; message: string } | null>(null);
  // One call at a time: a second Validate or Pay while one is on its way is refused ('Request already sent').
  const validate = useValidateCsv();
  const pay = usePayCsv();
  const busy = validate.isPending || pay.isPending;
  // Bumped whenever the type or the file changes, so an answer about the previous choice is dropped.
  const choice = useRef(0);

  // Choosing a template answers 'Template is required': its message and toast go.
  const templateChosen = () => {
    setTemplateMissing(false);
    toast.dismiss(TEMPLATE_REQUIRED);
  };

  const choiceChanged = () => {
    choice.current++;
    setValidated(null);
    setRowErrors(null);
    setMissing(null);
  };

  // A file handed over by another page (the Amazon CSV Generator) is chosen as if the user had picked it.
  useEffect(() => {
    const file = takeHandedOverCsvFile();
    if (!file) return;
    const files = new DataTransfer();
    files.items.add(file);
    setValue('csv', files.files); // react-hook-form empties a file input it sets, so the input is given the file after
    const input = formRef.current?.querySelector<HTMLInputElement>('input[type=file]');
    if (input) input.files = files.files;
  }, [setValue]);

  /** The chosen type and file, or null after saying under its field what is missing. */
  const chosen = (): { labelType: string; file: File } | null => {
    const { labelType, csv } = getValues();
    const file = csv?.[0];
    const problem: typeof missing = !labelType
      ? { field: 'labelType', message: PLEASE_SELECT_LABEL_TYPE }
      : !file
        ? { field: 'csv', message: PLEASE_SELECT_CSV_FILE }
        : file.size === 0
          ? { field: 'csv', message: CSV_FILE_EMPTY }
          : null;
    setMissing(problem);
    return problem || !file ? null : { labelType, file };
  };

  const onValidate = () => {
    const input = chosen();
    if (!input) return;
    const asked = choice.current;
    setValidated(null);
    setRowErrors(null);
    // An answer about a type or file since changed is dropped.
    validate.mutate(input, {
      onSuccess: (result) => {
        if (asked === choice.current) setValidated(result);
      },
      onError: (error) => {
        if (asked === choice.current) setRowErrors(csvRowErrors(error));
      },
    });
  };

  const onPay = () => {
    if (!validated) return;
    const input = chosen();
    if (!input) return;
    const design = templateRequired(uid) ? getValues('design') : '';
    if (templateRequired(uid) && !design) {
      setTemplateMissing(true);
      toast.error(TEMPLATE_REQUIRED, { toastId: TEMPLATE_REQUIRED });
      return;
    }
    pay.mutate(
      { ...input, totalPrice: validated.totalPrice, design },
      {
        onSuccess: () => {
          formRef.current?.reset();
          reset(EMPTY);
          choiceChanged();
          setTemplateMissing(false);
        },
        onError: (error) => {
          const rows = csvRowErrors(error);
          if (rows) setRowErrors(rows);
          // Bad rows or a changed price: the file has to be validated again before paying.
          if (rows || (error instanceof ApiError && error.status === 409)) setValidated(null);
        },
      },
    );
  };

  return (
    <Card className="h-100">
      <Card.Header as="h6">Upload CSV</Card.Header>
      <Card.Body>
        <Form ref={formRef} noValidate onSubmit={(event) => event.preventDefault()} data-testid="csv-form">
          <Row className="g-3 mb-3">
            {/* The whole row: the card is narrow, and a type's name and price range must not be cut short. */}
            <Col xs={12}>
              <Form.Group controlId="csv-label-type">
                <Form.Label>Label Type</Form.Label>
                <LabelTypeSelect labelTypes={labelTypes} isInvalid={missing?.field === 'labelType'} {...register('labelType', { onChange: choiceChanged })} />
                <Form.Control.Feedback type="invalid">{missing?.field === 'labelType' && missing.message}</Form.Control.Feedback>
                <ChosenTypeText type={labelTypes.find((type) => type._id === labelTypeId)} />
              </Form.Group>
            </Col>
            {templateRequired(uid) && (
              <Col md={6}>
                <Form.Group controlId="csv-template">
                  <Form.Label>Template</Form.Label>
                  <TemplateSelect isInvalid={templateMissing} {...register('design', { onChange: templateChosen })} />
                  {templateMissing && <Form.Control.Feedback type="invalid">{TEMPLATE_REQUIRED}</Form.Control.Feedback>}
                </Form.Group>
              </Col>
            )}
            <Col xs={12}>
              <Form.Group controlId="csv-file">
                <Form.Label>CSV File</Form.Label>
                <Form.Control type="file" accept=".csv,text/csv" isInvalid={missing?.field === 'csv'} {...register('csv', { onChange: choiceChanged })} />
                <Form.Control.Feedback type="invalid" data-testid="csv-file-problem">
                  {missing?.field === 'csv' && missing.message}
                </Form.Control.Feedback>
              </Form.Group>
            </Col>
          </Row>
          {validated && (
            <Alert variant="success" className="py-2" data-testid="csv-summary">
              {validated.totalOrders} {validated.totalOrders === 1 ? 'label' : 'labels'}, total {money(validated.totalPrice)}
            </Alert>
          )}
          {validated?.printNotes && (
            <Alert variant="info" className="py-2" data-testid="csv-print-notes">
              <div>Labels print these rows otherwise than typed (other scripts in Latin letters, no emoji):</div>
              <ul className="mb-0">
                {validated.printNotes.map(({ row, printedAs }) => (
                  <li key={row}>
                    Row {row}:{' '}
                    {Object.entries(printedAs)
                      .map(([column, printed]) => `${column} prints as “${printed}”`)
                      .join('; ')}
                  </li>
                ))}
              </ul>
            </Alert>
          )}
          {validated?.unverified && (
            <Alert variant="warning" className="py-2" data-testid="csv-unverified">
              <div>The carrier could not verify these addresses; their labels may be refused (and refunded):</div>
              <ul className="mb-0">
                {validated.unverified.map(({ row, side, message }) => (
                  <li key={`${row}-${side}`}>
                    Row {row}, {side} address: {message}
                  </li>
                ))}
              </ul>
            </Alert>
          )}
          <div className="d-flex flex-wrap gap-2">
            <Button type="button" variant="outline-primary" disabled={busy} onClick={onValidate}>
              {validate.isPending && <Spinner animation="border" size="sm" className="me-2" />}
              Validate CSV
            </Button>
            <Button type="button" disabled={!validated || busy} onClick={onPay} data-testid="csv-pay">
              {pay.isPending && <Spinner animation="border" size="sm" className="me-2" />}
              {uid ? `Pay ${money(validated?.totalPrice ?? 0)}` : CHOOSE_TYPE_FOR_PRICE}
            </Button>
          </div>
          {rowErrors && <CsvRowErrors errors={rowErrors.errors} more={rowErrors.more} />}
        </Form>
      </Card.Body>
    </Card>
  );
}
