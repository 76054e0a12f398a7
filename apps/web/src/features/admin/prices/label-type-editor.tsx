import { useLayoutEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert, Button, Col, Form, InputGroup, Modal, Row, Spinner, Table } from 'react-bootstrap';
import { tierProblem, updateLabelTypeBody, type LabelType } from '@portal/contract';
import { useUpdateLabelType } from '../../../api/admin.ts';

/** The editor keeps what was typed; numbers are read on save. */
type TierText = { fromWeight: string; toWeight: string; price: string };
type EditorValues = { name: string; maxWeight: string; status: boolean; prices: TierText[] };

const toText = (type: LabelType): EditorValues => ({
  name: type.name,
  maxWeight: String(type.maxWeight),
  status: type.status,
  prices: [...type.prices]
    .sort((a, b) => a.fromWeight - b.fromWeight)
    .map((t) => ({ fromWeight: String(t.fromWeight), toWeight: String(t.toWeight), price: t.price.toFixed(2) })),
});

/** The body the server takes, or the first problem: a field the contract refuses, or a gap or overlap named by its tier. */
export function readEditor(values: EditorValues): { body: ReturnType<typeof updateLabelTypeBody.parse> } | { problem: string } {
  for (const [i, tier] of values.prices.entries()) {
    const numbers = [tier.fromWeight, tier.toWeight, tier.price].map((v) => (v.trim() === '' ? NaN : Number(v)));
    if (numbers.some((n) => !Number.isFinite(n))) return { problem: `Tier ${i + 1}: enter the from weight, the to weight and the price as numbers` };
  }
  const parsed = updateLabelTypeBody.safeParse({
    name: values.name,
    maxWeight: values.maxWeight.trim() === '' ? undefined : values.maxWeight,
    status: values.status,
    prices: values.prices.map((t) => ({ fromWeight: Number(t.fromWeight), toWeight: Number(t.toWeight), price: Number(t.price) })),
  });
  if (!parsed.success) return { problem: parsed.error.issues[0]?.message ?? 'Check the fields' };
  const problem = tierProblem(parsed.data.prices, parsed.data.maxWeight);
  return problem ? { problem } : { body: parsed.data };
}

type Row = TierText & { key: number };
let nextKey = 0;
const withKeys = (prices: TierText[]): Row[] => prices.map((t) => ({ ...t, key: ++nextKey }));

/** Name, max weight, on/off and the price tiers of one label type; tiers must run from 0 to the max weight without gap or overlap. */
export function LabelTypeEditor({ labelType, onClose }: { labelType: LabelType | null; onClose: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const update = useUpdateLabelType();
  const busy = update.isPending;
  const [fields, setFields] = useState<Omit<EditorValues, 'prices'>>({ name: '', maxWeight: '', status: true });
  const [rows, setRows] = useState<Row[]>([]);
  // Before the loaded type is painted, so nothing typed into the fields is cleared.
  useLayoutEffect(() => {
    if (!labelType) return;
    const { prices, ...rest } = toText(labelType);
    setFields(rest);
    setRows(withKeys(prices));
    setProblem(null);
  }, [labelType]);
  const unit = labelType?.weightUnit ?? 'lb';
  const setField = (name: 'name' | 'maxWeight') => (event: ChangeEvent<HTMLInputElement>) => setFields((f) => ({ ...f, [name]: event.target.value }));
  const setTier = (key: number, name: keyof TierText) => (event: ChangeEvent<HTMLInputElement>) =>
    setRows((all) => all.map((r) => (r.key === key ? { ...r, [name]: event.target.value } : r)));
  const addTier = () => setRows((all) => [...all, ...withKeys([{ fromWeight: all.at(-1)?.toWeight ?? '0', toWeight: fields.maxWeight, price: '' }])]);
  const removeTier = (key: number) => setRows((all) => all.filter((r) => r.key !== key));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!labelType) return;
    const result = readEditor({ ...fields, prices: rows });
    if ('problem' in result) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    update.mutate({ typeId: labelType._id, body: result.body }, { onSuccess: onClose });
  };

  return (
    <Modal show={labelType !== null} onHide={busy ? () => undefined : onClose} size="lg" centered>
      <Form onSubmit={onSubmit} noValidate aria-label="Edit label type">
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">
            Edit label type <span className="font-monospace small text-muted">{labelType?.uid}</span>
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Row className="g-3 mb-3">
            <Col md={6}>
              <Form.Group controlId="type-name">
                <Form.Label>Name</Form.Label>
                <Form.Control value={fields.name} onChange={setField('name')} />
              </Form.Group>
            </Col>
            <Col md={3}>
              <Form.Group controlId="type-max-weight">
                <Form.Label>Max weight</Form.Label>
                <InputGroup>
                  <Form.Control type="number" step="any" min="0" value={fields.maxWeight} onChange={setField('maxWeight')} />
                  <InputGroup.Text>{unit}</InputGroup.Text>
                </InputGroup>
              </Form.Group>
            </Col>
            <Col md={3} className="d-flex align-items-end">
              <Form.Check
                type="switch"
                id="type-status"
                label="Enabled"
                checked={fields.status}
                onChange={(event) => setFields((f) => ({ ...f, status: event.target.checked }))}
              />
            </Col>
          </Row>
          <Table size="sm" className="align-middle mb-2" data-testid="tier-rows">
            <thead>
              <tr>
                <th>Tier</th>
                <th>From ({unit})</th>
                <th>To ({unit})</th>
                <th>Price ($)</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={row.key} data-testid="tier-row">
                  <td>{index + 1}</td>
                  <td>
                    <Form.Control
                      size="sm"
                      type="number"
                      step="any"
                      aria-label={`Tier ${index + 1} from`}
                      value={row.fromWeight}
                      onChange={setTier(row.key, 'fromWeight')}
                    />
                  </td>
                  <td>
                    <Form.Control
                      size="sm"
                      type="number"
                      step="any"
                      aria-label={`Tier ${index + 1} to`}
                      value={row.toWeight}
                      onChange={setTier(row.key, 'toWeight')}
                    />
                  </td>
                  <td>
                    <Form.Control
                      size="sm"
                      type="number"
                      step="0.01"
                      aria-label={`Tier ${index + 1} price`}
                      value={row.price}
                      onChange={setTier(row.key, 'price')}
                    />
                  </td>
                  <td className="text-end">
                    <Button size="sm" variant="outline-danger" aria-label={`Remove tier ${index + 1}`} onClick={() => removeTier(row.key)}>
                      Remove
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Button size="sm" variant="outline-secondary" onClick={addTier}>
            Add tier
          </Button>
          <p className="small text-muted mt-2 mb-0">
            Tiers start at 0, each starts where the one before ends, and the last ends at the max weight. A weight on a boundary takes the lower tier's price.
            Orders already placed keep their price.
          </p>
          {problem && (
            <Alert variant="danger" className="mt-3 mb-0" data-testid="tier-problem">
              {problem}
            </Alert>
          )}
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            Save
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
