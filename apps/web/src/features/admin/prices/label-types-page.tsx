import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Spinner, Table } from 'react-bootstrap';
import type { LabelType } from '@portal/contract';
import { money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { adminLabelTypesQuery, useUpdateLabelType } from '../../../api/admin.ts';
import { LabelTypeEditor } from './label-type-editor.tsx';
import { UpstreamServicesCard } from './upstream-services-card.tsx';

const byWeight = (type: LabelType) => [...type.prices].sort((a, b) => a.fromWeight - b.fromWeight);

/** /admin/label-types: every label type, enabled or not, with its tiers; switch one on or off, or edit it. */
export function LabelTypesPage() {
  const types = useQuery({ ...adminLabelTypesQuery(), refetchOnMount: 'always' });
  const [editing, setEditing] = useState<LabelType | null>(null);
  const update = useUpdateLabelType();
  const toggle = (type: LabelType) =>
    update.mutate({ typeId: type._id, body: { name: type.name, maxWeight: type.maxWeight, status: !type.status, prices: type.prices } });

  return (
    <>
      <Card>
        <Card.Header>
          <h2 className="h6 mb-0">Label types and prices</h2>
        </Card.Header>
        <Card.Body>
          {types.isPending && <Spinner animation="border" size="sm" />}
          <LoadError query={types} what="the label types" />
          <Table responsive hover size="sm" className="align-middle small mb-0" data-testid="label-types-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Uid</th>
                <th>Max weight</th>
                <th>Tiers</th>
                <th>Status</th>
                <th>Action</th>
              </tr>
            </thead>
            <tbody>
              {types.data?.labelTypes.map((type) => (
                <tr key={type._id} data-testid="label-type-row" data-uid={type.uid}>
                  <td>{type.name}</td>
                  <td className="font-monospace">{type.uid}</td>
                  <td>
                    {type.maxWeight} {type.weightUnit}
                  </td>
                  <td data-testid="tiers">
                    {byWeight(type).map((tier) => (
                      <div key={tier.fromWeight} className="text-nowrap">
                        {tier.fromWeight}-{tier.toWeight} {type.weightUnit}: {money(tier.price)}
                      </div>
                    ))}
                  </td>
                  <td>
                    <Badge bg={type.status ? 'success' : 'secondary'}>{type.status ? 'Enabled' : 'Disabled'}</Badge>
                  </td>
                  <td className="text-nowrap">
                    <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setEditing(type)}>
                      Edit
                    </Button>
                    <Button size="sm" variant={type.status ? 'outline-secondary' : 'outline-success'} disabled={update.isPending} onClick={() => toggle(type)}>
                      {type.status ? 'Disable' : 'Enable'}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card.Body>
        <LabelTypeEditor labelType={editing} onClose={() => setEditing(null)} />
      </Card>
      <UpstreamServicesCard />
    </>
  );
}
