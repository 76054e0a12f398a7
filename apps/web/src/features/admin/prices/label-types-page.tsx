import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Spinner, Table } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import type { LabelType } from '@portal/contract';
import { LABEL_TYPES_QUERY_KEY, PRICE_QUERY_KEY } from '../../../api/catalog.ts';
import { errorMessage } from '../../../api/client.ts';
import { money } from '../../../components/format.ts';
import { ADMIN_QUERY_KEY, adminKey, readAdminLabelTypes, updateLabelType } from '../api.ts';
import { LabelTypeEditor } from './label-type-editor.tsx';
import { asyncHandler } from '../../../components/async-handler.ts';

const byWeight = (type: LabelType) => [...type.prices].sort((a, b) => a.fromWeight - b.fromWeight);

/** /admin/label-types: every label type, enabled or not, with its tiers; switch one on or off, or edit it. */
export function LabelTypesPage() {
  const queryClient = useQueryClient();
  const types = useQuery({ queryKey: adminKey('label-types'), queryFn: readAdminLabelTypes, refetchOnMount: 'always' });
  useEffect(() => {
    if (types.error) toast.error(errorMessage(types.error));
  }, [types.error]);
  const [editing, setEditing] = useState<LabelType | null>(null);
  const [switching, setSwitching] = useState<string | null>(null);

  const toggle = async (type: LabelType) => {
    setSwitching(type._id);
    try {
      const { message } = await updateLabelType(type._id, { name: type.name, maxWeight: type.maxWeight, status: !type.status, prices: type.prices });
      toast.success(message);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      await Promise.all([ADMIN_QUERY_KEY, LABEL_TYPES_QUERY_KEY, PRICE_QUERY_KEY].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      setSwitching(null);
    }
  };

  return (
    <Card>
      <Card.Header>
        <h2 className="h6 mb-0">Label types and prices</h2>
      </Card.Header>
      <Card.Body>
        {types.isPending && <Spinner animation="border" size="sm" />}
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
                  <Button size="sm" variant={type.status ? 'outline-secondary' : 'outline-success'} disabled={switching === type._id} onClick={asyncHandler(() => toggle(type))}>
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
  );
}
