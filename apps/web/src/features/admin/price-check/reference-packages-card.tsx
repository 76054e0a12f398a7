import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Form, Row, Spinner, Table } from 'react-bootstrap';
import type { ReferencePackage, ReferencePackageBody } from '@portal/contract';
import { LoadError } from '../../../components/load-error.tsx';
import { referencePackagesQuery, useDeleteReferencePackage, useSaveReferencePackage } from '../../../api/admin.ts';

type Draft = { name: string; weight: string; weightUnit: 'lb' | 'oz'; length: string; width: string; height: string; fromZip: string; toZip: string };
const EMPTY: Draft = { name: '', weight: '', weightUnit: 'lb', length: '', width: '', height: '', fromZip: '', toZip: '' };
const draftOf = (p: ReferencePackage): Draft => ({
  name: p.name,
  weight: String(p.weight),
  weightUnit: p.weightUnit,
  length: p.length === null ? '' : String(p.length),
  width: p.width === null ? '' : String(p.width),
  height: p.height === null ? '' : String(p.height),
  fromZip: p.fromZip,
  toZip: p.toZip,
});
/** Empty: no dimension; anything else is sent as a number for the server to judge. */
const dimension = (text: string) => (text.trim() === '' ? null : Number(text));
const bodyOf = (d: Draft): ReferencePackageBody => ({
  name: d.name,
  weight: Number(d.weight),
  weightUnit: d.weightUnit,
  length: dimension(d.length),
  width: dimension(d.width),
  height: dimension(d.height),
  fromZip: d.fromZip,
  toZip: d.toZip,
});
const size = (p: ReferencePackage) => (p.length === null ? '—' : `${p.length} x ${p.width} x ${p.height} in`);

/** Add or edit one package: name, weight, optional dimensions, the two ZIPs (one country). */
function PackageForm({ editing, onDone }: { editing: ReferencePackage | null; onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(editing ? draftOf(editing) : EMPTY);
  const save = useSaveReferencePackage();
  const field = (key: keyof Draft) => ({
    value: draft[key],
    onChange: (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [key]: e.currentTarget.value }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ packageId: editing?._id ?? null, body: bodyOf(draft) }, { onSuccess: onDone });
  };
  return (
    <Form
      onSubmit={submit}
      className="border rounded p-2 mt-3"
      data-testid="reference-package-form"
      aria-label={editing ? 'Edit reference package' : 'Add a reference package'}
    >
      <Row className="g-2">
        <Col xs={12} md={4}>
          <Form.Label className="small mb-0" htmlFor="ref-name">
            Name
          </Form.Label>
          <Form.Control size="sm" id="ref-name" {...field('name')} />
        </Col>
        <Col xs={6} md={2}>
          <Form.Label className="small mb-0" htmlFor="ref-weight">
            Weight
          </Form.Label>
          <Form.Control size="sm" id="ref-weight" inputMode="decimal" {...field('weight')} />
        </Col>
        <Col xs={6} md={2}>
          <Form.Label className="small mb-0" htmlFor="ref-unit">
            Unit
          </Form.Label>
          <Form.Select
            size="sm"
            id="ref-unit"
            value={draft.weightUnit}
            onChange={(e) => setDraft({ ...draft, weightUnit: e.currentTarget.value as 'lb' | 'oz' })}
          >
            <option value="lb">lb</option>
            <option value="oz">oz</option>
          </Form.Select>
        </Col>
        {(['length', 'width', 'height'] as const).map((key) => (
          <Col xs={4} md={1} key={key}>
            <Form.Label className="small mb-0 text-capitalize" htmlFor={`ref-${key}`}>
              {key}
            </Form.Label>
            <Form.Control size="sm" id={`ref-${key}`} inputMode="decimal" placeholder="in" {...field(key)} />
          </Col>
        ))}
        <Col xs={6} md={3}>
          <Form.Label className="small mb-0" htmlFor="ref-from">
            From ZIP
          </Form.Label>
          <Form.Control size="sm" id="ref-from" {...field('fromZip')} />
        </Col>
        <Col xs={6} md={3}>
          <Form.Label className="small mb-0" htmlFor="ref-to">
            To ZIP
          </Form.Label>
          <Form.Control size="sm" id="ref-to" {...field('toZip')} />
        </Col>
        <Col xs={12} md={6} className="d-flex align-items-end gap-2">
          <Button size="sm" type="submit" disabled={save.isPending}>
            {editing ? 'Save package' : 'Add package'}
          </Button>
          <Button size="sm" variant="outline-secondary" onClick={onDone}>
            Cancel
          </Button>
        </Col>
      </Row>
    </Form>
  );
}

/** The packages the price check prices with; every change is audited and runs the check again. */
export function ReferencePackagesCard() {
  const packages = useQuery({ ...referencePackagesQuery(), refetchOnMount: 'always' });
  const remove = useDeleteReferencePackage();
  // null: no form; 'new': adding; a package: editing it.
  const [form, setForm] = useState<ReferencePackage | 'new' | null>(null);
  return (
    <Card className="mt-3">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h2 className="h6 mb-0 me-auto">Reference packages</h2>
        <Button size="sm" variant="outline-primary" onClick={() => setForm('new')}>
          Add a package
        </Button>
      </Card.Header>
      <Card.Body>
        {packages.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={packages} what="the reference packages" />
        <Table size="sm" className="align-middle small mb-0 table-stack" data-testid="reference-packages-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Weight</th>
              <th>Size</th>
              <th>From</th>
              <th>To</th>
              <th>Route</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {packages.data?.packages.map((p) => (
              <tr key={p._id} data-testid="reference-package-row" data-id={p._id}>
                <td className="stack-key">{p.name}</td>
                <td data-label="Weight">
                  {p.weight} {p.weightUnit}
                </td>
                <td data-label="Size">{size(p)}</td>
                <td data-label="From">{p.fromZip}</td>
                <td data-label="To">{p.toZip}</td>
                <td data-label="Route">{p.country}</td>
                <td className="stack-actions text-nowrap">
                  <Button size="sm" variant="outline-primary" className="me-1" aria-label={`Edit ${p.name}`} onClick={() => setForm(p)}>
                    Edit
                  </Button>
                  <Button size="sm" variant="outline-danger" aria-label={`Delete ${p.name}`} disabled={remove.isPending} onClick={() => remove.mutate(p._id)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        {form && <PackageForm key={form === 'new' ? 'new' : form._id} editing={form === 'new' ? null : form} onDone={() => setForm(null)} />}
      </Card.Body>
    </Card>
  );
}
